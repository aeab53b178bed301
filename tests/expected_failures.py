"""Tests that fail on torch 2.14, each with why. tests/conftest.py marks each
one a strict xfail (passing fails the run: the list cannot go stale).
Keys are "<path under tests/>::<test name with parameters>"; each reason is
the test's failure message on torch 2.14 (first line). Empty: every test
passes.
"""
EXPECTED_FAILURES: dict[str, str] = {}
