# torch.compile tests: every test starts and ends with Dynamo's caches reset,
# so that no test replays graphs another one compiled.
import pytest
import torch


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
