"""nn.utils.rnn packed sequences on the lazy device
(ltc_backend/lazy_kernels/packed_sequence_kernel.cpp): pack_padded_sequence
with CPU lengths (as eager requires), an LSTM/GRU/RNN over the packed batch,
pad_packed_sequence, backward and an optimizer step, against eager CPU and
natively compiled; and eager's errors for bad lengths."""
import copy

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence

import ltc_mlir
from lazy_testing import assert_all_native, eager_fallback_ops


def train_steps(cls, device, model, batches, enforce_sorted):
    model = copy.deepcopy(model).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    outputs = []
    for x, lengths in batches:
        x = x.detach().clone().to(device).requires_grad_()
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=enforce_sorted)
        out, hidden = model(packed)
        padded, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        h = hidden[0] if isinstance(hidden, tuple) else hidden
        loss = padded.pow(2).mean() + h.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if device == "lazy":
            torch._lazy.mark_step()
        assert out_lengths.device.type == "cpu" and packed.batch_sizes.device.type == "cpu"
        outputs += [padded.detach().cpu(), x.grad.cpu(), out_lengths]
    return outputs + [p.detach().cpu() for p in model.parameters()]


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_rnn_training_matches_eager(cls, enforce_sorted):
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = cls(4, 5, num_layers=2, batch_first=True)
    lengths = [torch.tensor([6, 4, 4, 1]), torch.tensor([5, 5, 3, 2])]
    if not enforce_sorted:
        lengths = [torch.tensor([2, 6, 1, 4]), torch.tensor([3, 5, 5, 2])]
    batches = [(torch.randn(4, 6, 4, generator=g), l) for l in lengths]
    eager = train_steps(cls, "cpu", model, batches, enforce_sorted)
    ltc_mlir.reset_metrics()
    import torch._lazy.metrics as lazy_metrics
    lazy_metrics.reset()
    lazy = train_steps(cls, "lazy", model, batches, enforce_sorted)
    for e, l in zip(eager, lazy):
        assert e.dtype == l.dtype and e.shape == l.shape
        torch.testing.assert_close(l, e, rtol=1e-5, atol=1e-5)
    assert eager_fallback_ops() == []
    assert_all_native()


def test_pack_sequence_of_lazy_tensors():
    seqs = [torch.randn(n, 3) for n in (4, 2, 1)]
    eager = pack_sequence(seqs)
    lazy = pack_sequence([s.to("lazy") for s in seqs])
    torch.testing.assert_close(lazy.data.cpu(), eager.data)
    assert torch.equal(lazy.batch_sizes, eager.batch_sizes)


BAD = {
    "unsorted": lambda d: pack_padded_sequence(torch.randn(3, 4, 2).to(d), torch.tensor([2, 4, 1]), batch_first=True),
    "zero_length": lambda d: pack_padded_sequence(torch.randn(3, 4, 2).to(d), torch.tensor([4, 2, 0]), batch_first=True),
    "wrong_count": lambda d: pack_padded_sequence(torch.randn(3, 4, 2).to(d), torch.tensor([4, 2]), batch_first=True),
    "empty": lambda d: torch._VF._pack_padded_sequence(torch.randn(0, 3, 2).to(d), torch.tensor([1, 1, 1]), False),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_lengths_raise_eagers_error(name):
    with pytest.raises(RuntimeError) as eager:
        BAD[name]("cpu")
    with pytest.raises(RuntimeError) as lazy:
        BAD[name]("lazy")
    assert str(lazy.value).splitlines()[0] == str(eager.value).splitlines()[0]


def test_lengths_on_the_lazy_device_raise_eagers_message():
    # Eager (CUDA too) wants the lengths on the CPU.
    with pytest.raises(RuntimeError, match=r"'lengths' argument should be a 1D CPU int64 tensor, "
                                           r"but got 1D lazy:0 Long tensor"):
        torch._VF._pack_padded_sequence(torch.randn(4, 3, 2).to("lazy"),
                                        torch.tensor([4, 2, 1]).to("lazy"), False)


def test_lengths_longer_than_the_input_raise():
    # Eager returns batch sizes that do not match its data; we raise.
    with pytest.raises(RuntimeError, match="longest length, 7, is larger than the padded sequence length 4"):
        pack_padded_sequence(torch.randn(2, 4, 3).to("lazy"), torch.tensor([7, 2]), batch_first=True)
