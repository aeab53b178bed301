"""Source text of a small MLP trained on the lazy device and eagerly in
lockstep (same seed, same batches, SGD), for run_isolated programs that
check what a training loop compiles, caches or loads.

The text defines `model` (lazy), `eager` and `param_diff()`, the largest
difference between their parameters after the loop."""


def lockstep_mlp_training(in_features, hidden, classes, batch, steps):
    return f'''
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear({in_features}, {hidden}), torch.nn.ReLU(),
                            torch.nn.Linear({hidden}, {classes}))
eager = __import__("copy").deepcopy(model)
model = model.to("lazy")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
eager_opt = torch.optim.SGD(eager.parameters(), lr=0.1)
for step in range({steps}):
    x, y = torch.randn({batch}, {in_features}), torch.randint(0, {classes}, ({batch},))
    for net, o, dev in ((model, opt, "lazy"), (eager, eager_opt, "cpu")):
        loss = torch.nn.functional.cross_entropy(net(x.to(dev)), y.to(dev))
        o.zero_grad()
        loss.backward()
        o.step()
    torch._lazy.mark_step()

def param_diff():
    return max((a.detach().cpu() - b.detach()).abs().max().item()
               for a, b in zip(model.parameters(), eager.parameters()))
'''
