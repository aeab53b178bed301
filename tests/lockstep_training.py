"""Source text of a small model trained on the lazy device and eagerly in
lockstep (same seed, same batches, same optimizer), for run_isolated
programs that check what a training loop compiles, caches or loads.

The text defines `model` (lazy), `eager` and `param_diff()`, the largest
difference between their parameters after the loop."""


def lockstep_training(model_source, optimizer, in_features, classes, batch, steps):
    """`model_source`: an expression building the (CPU) model;
    `optimizer`: e.g. "SGD(params, lr=0.1)" with `params` for the parameters."""
    return f'''
torch.manual_seed(0)
model = {model_source}
eager = __import__("copy").deepcopy(model)
model = model.to("lazy")
def make_optimizer(params):
    return torch.optim.{optimizer}
opt, eager_opt = make_optimizer(model.parameters()), make_optimizer(eager.parameters())
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


def lockstep_mlp_training(in_features, hidden, classes, batch, steps):
    """A two-layer ReLU MLP with SGD."""
    model = (f"torch.nn.Sequential(torch.nn.Linear({in_features}, {hidden}), torch.nn.ReLU(), "
             f"torch.nn.Linear({hidden}, {classes}))")
    return lockstep_training(model, "SGD(params, lr=0.1)", in_features, classes, batch, steps)
