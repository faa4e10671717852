"""Shared fixtures: images at awkward sizes (never zeros), the photos of the
source tree, and the command line the package carries."""
import os
import subprocess

import numpy as np
import pytest

import jetfilter as jf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PHOTOS = os.path.join(ROOT, "samples", "images")
SIZES = [(1, 1), (5, 7), (2, 33), (17, 3), (577, 1023)]  # (H, W): 1x1, 7x5, 1023x577 ...


def builds_format(ext):
    """Whether this jetfilter writes .ext (TIFF and WebP are optional: the
    GPU machine's static build has neither)."""
    import tempfile
    import jetfilter as jf
    with tempfile.TemporaryDirectory() as d:
        try:
            jf.write(os.path.join(d, "probe." + ext), np.zeros((2, 2, 3), np.uint8))
        except jf.UnsupportedError:
            return False
    return True


def random_image(h, w, c=None, dtype=np.uint8, seed=0):
    rng = np.random.default_rng(seed + 7919 * h + w)
    top = 255 if dtype == np.uint8 else 65535
    shape = (h, w) if c is None else (h, w, c)
    return rng.integers(0, top + 1, shape, dtype=dtype)


def cli(*args, check=True):
    """Run the command line the package carries; (exit code, stdout, stderr)."""
    p = subprocess.run([jf._cli.executable()] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if check and p.returncode != 0:
        raise AssertionError("jetfilter %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def cpu():
    """A CPU context: the reference every other path is held to."""
    return jf.Context(backend="cpu")


@pytest.fixture
def tmp(tmp_path):
    return str(tmp_path)
