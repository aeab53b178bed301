"""Step 1 of the export_c_api ctest (Python): exports an MLP training step
with aot=True into OUT, writes its inputs, eager's state after 5 steps
(expected/<global>.bin), the list of globals and a weights file whose
tensor has the wrong dtype. Step 2 (c_api_test.c) runs without Python."""
import os
import sys

import torch
import torch.nn.functional as F

import ltc_mlir

out = sys.argv[1]
os.makedirs(os.path.join(out, "expected"), exist_ok=True)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x, y = torch.randn(5, 6), torch.randn(5, 3)
manifest = ltc_mlir.export(model, (x,), out, optimizer=opt, loss_fn=F.mse_loss,
                           example_targets=(y,), name="mlp", aot=True)
x.numpy().tofile(os.path.join(out, "input_0.bin"))
y.numpy().tofile(os.path.join(out, "target_0.bin"))
for _ in range(5):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
loss.detach().numpy().tofile(os.path.join(out, "expected", "loss.bin"))
params = dict(model.named_parameters())
with open(os.path.join(out, "globals.txt"), "w") as listing:
    for g in manifest["globals"]:
        if g["kind"] == "parameter":
            value = params[g["torch_name"]]
        else:
            pname, key = g["torch_name"].rsplit(".", 1)
            value = opt.state[params[pname]][key]
        value.detach().numpy().tofile(os.path.join(out, "expected", g["name"] + ".bin"))
        listing.write(f"{g['name']} {g['nbytes']}\n")
# The same weights with one tensor declared F64: _init must refuse it.
data = open(os.path.join(out, "mlp.safetensors"), "rb").read()
n = int.from_bytes(data[:8], "little")
header = data[8:8 + n].replace(b'"F32"', b'"F64"', 1)
open(os.path.join(out, "wrong_dtype.safetensors"), "wb").write(data[:8] + header + data[8 + n:])
