"""Tests that fail on torch 2.14, each with why: the port from torch 1.13
(issue "Current PyTorch") is not finished. tests/conftest.py marks each one
a strict xfail: one that starts passing fails until its entry is removed.
Keys are "<path under tests/>::<test name with parameters>".
"""
EXPECTED_FAILURES = {
}
