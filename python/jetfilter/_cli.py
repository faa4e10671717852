"""The jetfilter command that comes with the package (console script)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def executable():
    """The path of the bundled jetfilter command."""
    return os.path.join(HERE, "bin", "jetfilter")


def main():
    exe = executable()
    if not os.access(exe, os.X_OK):
        sys.exit("jetfilter: the command is missing from the package (%s); reinstall it" % exe)
    os.execv(exe, [exe] + sys.argv[1:])
