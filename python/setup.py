"""Build and install the jetfilter Python package from a checkout:

    pip install ./python

It builds the C library with CMake (with its CUDA kernels when nvcc is
found, else the CPU backend only) into build-python/ at the top of the
tree (JETFILTER_BUILD_DIR for another; kept, so a second install only
rebuilds what changed), links it statically into one extension module on
Python's limited API (one binary for CPython 3.6 and every later one), and
puts the jetfilter command beside it (jetfilter.denoise runs it).

Environment: JETFILTER_BUILD_DIR (where the C library is built),
JETFILTER_CMAKE_ARGS (extra cmake arguments, e.g. -DJETFILTER_CUDA_ARCHS=53),
JETFILTER_PREBUILT=1 (use JETFILTER_BUILD_DIR as it is; run no cmake),
JETFILTER_LINK_LIST (a file naming the libraries to link, one a line, in
place of the build's jetfilter-link.txt).

Only what setuptools had in 2018 (Ubuntu 18.04's, for a Jetson on JetPack
4.6) is used; Python 3.6 syntax throughout.
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def project_version():
    with open(os.path.join(ROOT, "include", "jetfilter", "base.h")) as f:
        for line in f:
            if line.startswith("#define JF_VERSION_STRING "):
                return line.split('"')[1]
    raise RuntimeError("no JF_VERSION_STRING in include/jetfilter/base.h")


class BuildWithCMake(build_ext):
    """Build the C library with CMake first, then the extension over it."""

    def run(self):
        build = os.path.abspath(os.environ.get("JETFILTER_BUILD_DIR") or os.path.join(ROOT, "build-python"))
        if os.environ.get("JETFILTER_PREBUILT") != "1":
            self.cmake(build)
        link = os.environ.get("JETFILTER_LINK_LIST") or os.path.join(build, "jetfilter-link.txt")
        lib = os.path.join(build, "libjetfilter.a")
        cli = os.path.join(build, "jetfilter")
        for path in (link, lib, cli):
            if not os.path.exists(path):
                sys.exit("setup.py: %s is missing: the C library was not built there" % path)
        with open(link) as f:
            libs = [line.strip() for line in f if line.strip()]
        for ext in self.extensions:
            ext.extra_objects = [lib] + [l for l in libs if os.path.isabs(l)]
            ext.depends = [lib]  # a rebuilt library relinks the module
            ext.libraries = [l[2:] if l.startswith("-l") else l for l in libs if not os.path.isabs(l)]
            ext.include_dirs = [os.path.join(ROOT, "include")]
            # libraries carried beside the module (jetfilter/lib) are found there first
            # and the library's symbols stay inside the module (no clash with another copy)
            ext.extra_link_args = ["-Wl,-rpath,$ORIGIN/lib", "-Wl,--exclude-libs,ALL"]
        build_ext.run(self)
        # the command-line tool goes with the module (the `jetfilter` console script)
        for out in (self.build_lib, HERE if self.inplace else None):
            if out:
                bindir = os.path.join(out, "jetfilter", "bin")
                if not os.path.isdir(bindir):
                    os.makedirs(bindir)
                shutil.copy2(cli, os.path.join(bindir, "jetfilter"))

    def cmake(self, build):
        if not os.path.isdir(build):
            os.makedirs(build)
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            args = ["cmake", ROOT, "-DCMAKE_BUILD_TYPE=Release", "-DJETFILTER_TESTS=OFF",
                    "-DJETFILTER_SHARED=OFF"]
            args += os.environ.get("JETFILTER_CMAKE_ARGS", "").split()
            print("setup.py: configuring the C library in " + build)
            subprocess.check_call(args, cwd=build)
        jobs = str(os.cpu_count() or 2)
        print("setup.py: building the C library (the CUDA kernels take minutes where nvcc is found)")
        subprocess.check_call(["cmake", "--build", ".", "--target", "jetfilter", "jetfilter-cli", "--",
                               "-j" + jobs] if self.cmake_takes_targets() else
                              ["cmake", "--build", ".", "--", "-j" + jobs, "jetfilter", "jetfilter-cli"],
                              cwd=build)

    @staticmethod
    def cmake_takes_targets():
        """Several --target names: CMake 3.15 and later (3.10 on a Nano takes one)."""
        out = subprocess.check_output(["cmake", "--version"]).decode()
        major, minor = out.split()[2].split(".")[:2]
        return (int(major), int(minor)) >= (3, 15)


with open(os.path.join(HERE, "README.md")) as f:
    long_description = f.read()

setup(
    name="jetfilter",
    version=project_version(),
    description="Median filters, convolutions, PSNR and SSIM on NumPy, CuPy and PyTorch arrays, "
                "on CUDA GPUs (a Jetson Nano up) or the CPU",
    long_description=long_description,
    long_description_content_type="text/markdown",
    python_requires=">=3.6",
    packages=["jetfilter"],
    package_data={"jetfilter": ["bin/jetfilter", "py.typed", "*.pyi"]},
    ext_modules=[Extension("jetfilter._jetfilter", [os.path.join("src", "_jetfilter.c"), os.path.join("src", "intake.c")],
                           py_limited_api=True, extra_compile_args=["-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                               "-Wno-missing-field-initializers",
                                               # a call outside the limited API of 3.6 is not
                                               # declared there: an error, not a guess
                                               "-Werror=implicit-function-declaration",
                                               "-Werror=int-conversion"])],
    cmdclass={"build_ext": BuildWithCMake},
    entry_points={"console_scripts": ["jetfilter = jetfilter._cli:main"]},
    # NumPy 1.13 is the oldest the code uses; pip picks one the Python has (3.6: up to 1.19)
    install_requires=["numpy>=1.13"],
    extras_require={"test": ["pytest"]},
    zip_safe=False,
)
