"""nn.SyncBatchNorm on lazy tensors.

torch's SyncBatchNorm refuses any device but CUDA, XPU and PrivateUse1
("SyncBatchNorm expected input tensor to be on GPU ..."), and its autograd
function calls CUDA-only statistics kernels. On lazy tensors in training
with a process group of more than one rank, the forward here computes the
statistics of the whole global batch from ordinary lazy ops and
differentiable all-reduces (torch.distributed.nn.functional.all_reduce,
whose backward all-reduces the gradients): the sum and count, then the sum
of squared deviations from the global mean (two passes, as eager's
BatchNorm, not E[x^2] - E[x]^2). Everything, backward included, stays in
the step's graph. Running statistics get the global mean and the unbiased
global variance, as torch's SyncBatchNorm gives. A group of one rank is
plain batch norm; other devices and eval mode keep torch's forward.
"""
import torch
import torch.distributed as dist

_original_forward = torch.nn.SyncBatchNorm.forward
_installed = False


def _global_sum(t, group):
    from torch.distributed.nn.functional import all_reduce
    return all_reduce(t, group=group)


def _forward(self, input):
    if input.device.type != "lazy" or not self.training or not dist.is_available() \
            or not dist.is_initialized():
        return _original_forward(self, input)
    group = self.process_group or dist.group.WORLD
    if dist.get_world_size(group) == 1:
        # torch's forward raises for the lazy device here too: a group of one
        # is plain batch norm.
        return torch.nn.modules.batchnorm._BatchNorm.forward(self, input)
    self._check_input_dim(input)
    self._check_non_zero_input_channels(input)
    factor = 0.0 if self.momentum is None else self.momentum
    if self.track_running_stats and self.num_batches_tracked is not None:
        self.num_batches_tracked.add_(1)
        if self.momentum is None:
            factor = 1.0 / float(self.num_batches_tracked)
    channels = input.size(1)
    dims = [0] + list(range(2, input.dim()))
    shape = [1, channels] + [1] * (input.dim() - 2)
    local_count = input.numel() // channels
    sums = _global_sum(torch.cat([input.sum(dims),
                                  input.new_full((1,), float(local_count))]), group)
    count = sums[channels]
    mean = sums[:channels] / count
    centered = input - mean.view(shape)
    var = _global_sum((centered * centered).sum(dims), group) / count
    out = centered * torch.rsqrt(var.view(shape) + self.eps)
    if self.affine:
        out = out * self.weight.view(shape) + self.bias.view(shape)
    if self.track_running_stats and self.running_mean is not None:
        with torch.no_grad():
            self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
            self.running_var.mul_(1 - factor).add_(
                var.detach() * (count / (count - 1)) * factor)
    return out


def install():
    global _installed
    if not _installed:
        torch.nn.SyncBatchNorm.forward = _forward
        _installed = True
