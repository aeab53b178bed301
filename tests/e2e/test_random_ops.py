"""Sampling ops compiled natively: bernoulli (tensor p, float p, bernoulli_),
uniform_, normal_ (and torch.normal with tensor mean/std), exponential_,
random_ (from/to), and torch.rand/randn/randint, which decompose into them.

The native samples cannot be eager's (eager consumes a Mersenne twister
serially; compiled code hashes a per-run seed with the element index, see
"Random ops" in docs/architecture.md), so these tests check distributions:
on large samples the mean and variance are within 6 sigma of the
distribution's (sigma from its 4th moment), values lie in range, integers
cover their range uniformly; every run draws new values; torch.manual_seed
makes runs reproducible; each op runs natively.
"""
import math

import pytest
import torch

import ltc_mlir
from lazy_testing import assert_all_native, assert_ops_native, eager_fallback_ops

N = 200_000


def lazy_sample(fn, *inputs):
    """fn(*lazy inputs) in one graph; the result on the CPU."""
    out = fn(*[x.to("lazy") for x in inputs])
    torch._lazy.mark_step()
    return out.cpu()


def check_mean_var(x, mean, var, fourth_central):
    """Sample mean and variance of the flat f64 `x` within 6 sigma."""
    x = x.double().reshape(-1)
    n = x.numel()
    m = x.mean().item()
    assert abs(m - mean) <= 6 * math.sqrt(var / n) + 1e-12, (m, mean)
    v = x.var().item()
    sigma_v = math.sqrt(max(fourth_central - var * var, 0.0) / n)
    # (+ 4 var / n: the O(1/n) terms, all that is left for Bernoulli(0.5))
    assert abs(v - var) <= 6 * sigma_v + 4 * var / n + 1e-12, (v, var)


def test_uniform_():
    out = lazy_sample(lambda: torch.empty(N, device="lazy").uniform_(-2.0, 3.0))
    assert out.dtype == torch.float32 and out.shape == (N,)
    assert out.min() >= -2.0 and out.max() < 3.0
    w = 5.0
    check_mean_var(out, 0.5, w * w / 12, w ** 4 / 80)
    assert_all_native()
    assert_ops_native("aten::uniform")


def test_uniform_float64_and_rand():
    out = lazy_sample(lambda: torch.empty(N, device="lazy", dtype=torch.float64).uniform_())
    assert out.dtype == torch.float64 and 0 <= out.min() and out.max() < 1
    check_mean_var(out, 0.5, 1 / 12, 1 / 80)
    # 53 random bits: practically no repeated values.
    assert out.unique().numel() > N - 5
    r = lazy_sample(lambda: torch.rand(300, 700, device="lazy"))
    check_mean_var(r, 0.5, 1 / 12, 1 / 80)
    assert_all_native()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_normal_(dtype):
    out = lazy_sample(lambda: torch.empty(N, device="lazy", dtype=dtype).normal_(1.5, 2.0))
    assert out.dtype == dtype and torch.isfinite(out).all()
    check_mean_var(out, 1.5, 4.0, 3 * 16.0)
    # Tails: P(|z| > 2) = 4.55%.
    frac = ((out - 1.5).abs() > 4.0).double().mean().item()
    assert abs(frac - 0.0455) < 6 * math.sqrt(0.0455 * 0.9545 / N)
    assert_all_native()
    assert_ops_native("aten::normal_functional")


def test_randn_and_normal_with_tensor_mean_std():
    mean = torch.linspace(-3, 3, N)
    std = torch.linspace(0.5, 2, N)
    z1 = (lazy_sample(lambda m: torch.normal(m, 2.0), mean) - mean) / 2.0
    z2 = (lazy_sample(lambda s: torch.normal(-1.0, s), std) + 1.0) / std
    z3 = (lazy_sample(lambda m, s: torch.normal(m, s), mean, std) - mean) / std
    z4 = lazy_sample(lambda: torch.randn(400, 500, device="lazy"))
    for z in (z1, z2, z3, z4):
        check_mean_var(z, 0.0, 1.0, 3.0)
    assert_all_native()
    assert_ops_native("aten::normal")


def test_normal_negative_std_raises_at_run_time():
    std = torch.tensor([1.0, -1.0, 2.0])
    with pytest.raises(RuntimeError, match="std must be >= 0"):
        lazy_sample(lambda s: torch.normal(0.0, s), std)


def test_exponential_():
    lambd = 2.5
    out = lazy_sample(lambda: torch.empty(N, device="lazy").exponential_(lambd))
    assert (out >= 0).all() and torch.isfinite(out).all()
    mu = 1 / lambd
    check_mean_var(out, mu, mu * mu, 9 * mu ** 4)
    assert_all_native()
    assert_ops_native("aten::exponential")


@pytest.mark.parametrize("p", [0.1, 0.5, 0.97])
def test_bernoulli_float_p_and_inplace(p):
    out = lazy_sample(lambda: torch.empty(N, device="lazy").bernoulli_(p))
    assert set(out.unique().tolist()) <= {0.0, 1.0}
    check_mean_var(out, p, p * (1 - p), p * (1 - p) * (1 - 3 * p * (1 - p)))
    out2 = lazy_sample(lambda x: torch.bernoulli(x, p), torch.zeros(N, dtype=torch.float64))
    assert out2.dtype == torch.float64
    check_mean_var(out2, p, p * (1 - p), p * (1 - p) * (1 - 3 * p * (1 - p)))
    assert_all_native()
    assert_ops_native("aten::bernoulli")


def test_bernoulli_tensor_p():
    # Per-element probabilities: rows of p = 0, 0.25, 0.75, 1.
    probs = torch.tensor([0.0, 0.25, 0.75, 1.0]).repeat_interleave(N // 4)
    out = lazy_sample(lambda p: torch.bernoulli(p), probs)
    q = N // 4
    assert out[:q].sum() == 0 and out[3 * q:].sum() == q
    for i, p in ((1, 0.25), (2, 0.75)):
        part = out[i * q:(i + 1) * q]
        check_mean_var(part, p, p * (1 - p), p * (1 - p) * (1 - 3 * p * (1 - p)))
    # bernoulli_(Tensor p) with p broadcast over rows.
    p = torch.tensor([[0.2], [0.8]])
    out2 = lazy_sample(lambda pl: torch.zeros(2, N // 2, device="lazy").bernoulli_(pl), p)
    check_mean_var(out2[0], 0.2, 0.16, 0.2 * 0.8 * (1 - 3 * 0.16))
    check_mean_var(out2[1], 0.8, 0.16, 0.2 * 0.8 * (1 - 3 * 0.16))
    assert_all_native()
    assert_ops_native("aten::bernoulli")


def test_bernoulli_p_out_of_range_raises():
    with pytest.raises(RuntimeError, match="p must be in"):
        lazy_sample(lambda p: torch.bernoulli(p), torch.tensor([0.5, 1.5]))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32])
def test_random_from_to(dtype):
    out = lazy_sample(lambda: torch.empty(N, device="lazy", dtype=dtype).random_(-3, 7))
    assert out.dtype == dtype
    assert out.min() == -3 and out.max() == 6
    counts = torch.bincount((out.long() + 3), minlength=10).double()
    expected = N / 10
    assert ((counts - expected).abs() <= 6 * math.sqrt(expected * 0.9)).all(), counts
    out2 = lazy_sample(lambda: torch.empty(N, device="lazy", dtype=dtype).random_(5))
    assert out2.min() == 0 and out2.max() == 4
    assert_all_native()


def test_random_full_range_and_randint():
    out = lazy_sample(lambda: torch.empty(N, device="lazy").random_())
    assert out.min() >= 0 and out.max() <= 2 ** 24 and (out == out.round()).all()
    check_mean_var(out / 2 ** 24, 0.5, 1 / 12, 1 / 80)
    big = lazy_sample(lambda: torch.empty(N, device="lazy", dtype=torch.int64).random_())
    assert big.min() >= 0 and big.max() > 2 ** 62  # 63 random bits
    ri = lazy_sample(lambda: torch.randint(10, 20, (N,), device="lazy"))
    assert ri.dtype == torch.int64 and ri.min() == 10 and ri.max() == 19
    assert_all_native()


def test_fresh_values_each_step_and_manual_seed_reproduces():
    def step():
        return lazy_sample(lambda: torch.empty(4096, device="lazy").uniform_() +
                           torch.empty(4096, device="lazy").normal_())
    torch.manual_seed(123)
    a, b = step(), step()
    assert not torch.equal(a, b)
    assert ltc_mlir.metrics()["cache_hits"] >= 1
    torch.manual_seed(123)
    a2, b2 = step(), step()
    assert torch.equal(a, a2) and torch.equal(b, b2)
    assert_all_native()


def test_two_samples_in_one_graph_are_independent():
    x = torch.empty(N, device="lazy").uniform_()
    y = torch.empty(N, device="lazy").uniform_()
    torch._lazy.mark_step()
    x, y = x.cpu().double(), y.cpu().double()
    corr = ((x - x.mean()) * (y - y.mean())).mean() / (x.std() * y.std())
    assert abs(corr.item()) < 6 / math.sqrt(N)
    assert_all_native()


def test_explicit_generator_runs_eagerly_with_its_stream():
    g = torch.Generator().manual_seed(5)
    eager = torch.empty(1000).uniform_(generator=g)
    g.manual_seed(5)
    lazy = torch.empty(1000, device="lazy").uniform_(generator=g)
    torch._lazy.mark_step()
    assert torch.equal(lazy.cpu(), eager)


@pytest.mark.parametrize("dims", [2, 3])
def test_fractional_max_pool_with_given_samples_matches_eager(dims):
    # Without _random_samples the op draws them with torch.rand on the lazy
    # device (so not eager's values); with them given it is deterministic
    # and must equal eager, forward and backward.
    g = torch.Generator().manual_seed(3)
    shape = (2, 3) + (9,) * dims
    x = torch.randn(shape, generator=g)
    samples = torch.rand(2, 3, dims, generator=g)
    pool = getattr(torch.nn.functional, f"fractional_max_pool{dims}d")

    def run(device):
        xi = x.to(device).requires_grad_()
        out = pool(xi, 2, output_size=(4,) * dims, _random_samples=samples.to(device))
        (grad,) = torch.autograd.grad((out * out).sum(), [xi])
        if device == "lazy":
            torch._lazy.mark_step()
        return out.cpu(), grad.cpu()

    eager = run("cpu")
    ltc_mlir.reset_metrics()
    import torch._lazy.metrics as lazy_metrics
    lazy_metrics.reset()
    lazy = run("lazy")
    torch.testing.assert_close(lazy[0], eager[0], rtol=0, atol=0)
    torch.testing.assert_close(lazy[1], eager[1], rtol=1e-6, atol=1e-6)
    assert_all_native()
    assert eager_fallback_ops() == []


@pytest.mark.parametrize("dims,shape,output_size", [
    (2, (3, 11, 7), (5, 3)),       # unbatched, non-square
    (2, (2, 4, 10, 10), (1, 9)),   # one window (starts at S - k), and windows touching
    (3, (1, 2, 7, 8, 9), (3, 4, 2)),
])
def test_fractional_max_pool_windows_and_indices_match_eager(dims, shape, output_size):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(shape, generator=g)
    x[..., 0] = x[..., 1]  # ties inside windows: eager keeps the first
    batch = shape[0] if len(shape) == dims + 2 else 1
    channels = shape[-dims - 1]
    samples = torch.rand(batch, channels, dims, generator=g)
    pool = getattr(torch.nn.functional, f"fractional_max_pool{dims}d")
    results = []
    for device in ("cpu", "lazy"):
        xi = x.to(device).requires_grad_()
        out, idx = pool(xi, 2, output_size=output_size, return_indices=True,
                        _random_samples=samples.to(device))
        (grad,) = torch.autograd.grad((out * out).sum(), [xi])
        if device == "lazy":
            torch._lazy.mark_step()
        results.append((out.detach().cpu(), idx.cpu(), grad.cpu()))
    for e, l in zip(*results):
        torch.testing.assert_close(l, e, rtol=0, atol=0)


def test_fractional_max_pool_draws_its_samples_in_the_graph():
    x = torch.randn(2, 3, 12, 12)
    ltc_mlir.reset_metrics()
    # (torch 2.14's F.fractional_max_pool2d takes output_ratio as a tuple
    # only: a float raises TypeError in eager too.)
    out = torch.nn.functional.fractional_max_pool2d(x.to("lazy"), 3, output_ratio=(0.5, 0.5))
    torch._lazy.mark_step()
    out = out.cpu()
    assert out.shape == (2, 3, 6, 6)
    # Every output is the maximum of some 3x3 block of its plane.
    blocks = torch.nn.functional.max_pool2d(x, 3, stride=1)  # [2, 3, 10, 10]
    assert all(bool((blocks[n, c] == out[n, c, i, j]).any())
               for n in range(2) for c in range(3) for i in range(6) for j in range(6))
    assert_all_native()


@pytest.mark.parametrize("kind", ["randn_like", "rand_like", "exponential_"])
def test_like_factories_stay_native(kind):
    # randn_like/rand_like run below functionalization as empty_like + the
    # in-place sampler on the Lazy key (LTC's normal_/uniform_ kernels;
    # exponential_ is ours, exponential_kernel.cpp).
    import torch._lazy.metrics as lazy_metrics
    lazy_metrics.reset()
    x = torch.zeros(400, 500)
    fn = {"randn_like": torch.randn_like, "rand_like": torch.rand_like,
          "exponential_": lambda t: torch.empty_like(t).exponential_(2.0)}[kind]
    torch.manual_seed(3)
    out = lazy_sample(fn, x)
    torch.manual_seed(3)
    again = lazy_sample(fn, x)
    assert out.shape == x.shape and torch.equal(out, again)
    mean, var, fourth = {"randn_like": (0.0, 1.0, 3.0), "rand_like": (0.5, 1 / 12, 1 / 80),
                         "exponential_": (0.5, 0.25, 9 / 16)}[kind]
    check_mean_var(out, mean, var, fourth)
    assert eager_fallback_ops() == []
    assert_all_native()


@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_draws_slopes_that_its_gradient_uses(inplace):
    # Training: each element <= 0 is scaled by a slope uniform in
    # [lower, upper]; the gradient is that same slope (1 elsewhere).
    x = torch.randn(N, generator=torch.Generator().manual_seed(5))
    t = x.to("lazy").requires_grad_()
    y = t * 1
    out = torch.nn.functional.rrelu(y, 0.1, 0.3, training=True, inplace=inplace)
    out.sum().backward()
    torch._lazy.mark_step()
    out, grad = out.detach().cpu(), t.grad.cpu()
    negative = x <= 0
    assert torch.equal(out[~negative], x[~negative]) and torch.equal(grad[~negative],
                                                                     torch.ones_like(x[~negative]))
    slopes = grad[negative]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    torch.testing.assert_close(out[negative], x[negative] * slopes, rtol=0, atol=0)
    check_mean_var(slopes, 0.2, 0.2 ** 2 / 12, 0.2 ** 4 / 80)
    assert_all_native()
    assert eager_fallback_ops() == []


def test_rrelu_evaluation_is_leaky_relu_with_the_mean_slope():
    x = torch.randn(1000, generator=torch.Generator().manual_seed(6))
    eager = torch.nn.functional.rrelu(x, 0.1, 0.3, training=False)
    got = lazy_sample(lambda t: torch.nn.functional.rrelu(t, 0.1, 0.3, training=False), x)
    torch.testing.assert_close(got, eager, rtol=0, atol=0)
    assert_all_native()


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies_follow_the_probabilities(replacement):
    # 4000 rows of 5 categories (one of probability 0): the first draw of
    # each row is a sample of the distribution in both algorithms.
    probs = torch.tensor([0.1, 0.0, 0.4, 0.2, 0.3])
    rows = probs.repeat(4000, 1)
    ltc_mlir.reset_metrics()
    out = lazy_sample(lambda p: torch.multinomial(p, 3, replacement=replacement), rows)
    assert out.dtype == torch.long and out.shape == (4000, 3)
    assert not bool((out == 1).any()), "a zero-probability category was drawn"
    if not replacement:
        assert bool((out.sort(-1).values.diff(dim=-1) != 0).all()), "a category drawn twice"
    counts = torch.bincount(out[:, 0], minlength=5).double()
    n = out.size(0)
    sigma = (n * probs.double() * (1 - probs.double())).sqrt()
    assert bool(((counts - n * probs.double()).abs() <= 6 * sigma + 1e-9).all()), counts
    assert_all_native()
    assert eager_fallback_ops() == []


def test_multinomial_one_dim_and_errors():
    out = lazy_sample(lambda p: torch.multinomial(p, 2), torch.tensor([0.0, 1.0, 1.0]))
    assert out.shape == (2,) and sorted(out.tolist()) == [1, 2]
    for probs, kwargs, message in [
            (torch.tensor([0.5, -0.1]), {}, "element < 0"),
            (torch.tensor([0.5, float("nan")]), {}, "inf"),
            (torch.tensor([0.0, 0.0]), {}, "sum of probabilities <= 0"),
            (torch.tensor([0.5, -0.1]), dict(replacement=True), "probability entry < 0"),
            (torch.tensor([0.5, 0.5]), {}, "cannot sample n_sample > prob_dist")]:
        n = 3 if "n_sample >" in message else 2 if kwargs else 1
        with pytest.raises(RuntimeError, match=message):
            torch.multinomial(probs, n, **kwargs)
        with pytest.raises(RuntimeError, match=message):
            torch.multinomial(probs.to("lazy"), n, **kwargs)
