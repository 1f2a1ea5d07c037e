# SPDX-License-Identifier: Apache-2.0
"""Builds the xpose Python package with CMake: the library (static, linked into the module) and
the _xpose module, from the repository this file lives in.

    pip install --no-build-isolation ./python        # offline, with the distribution's setuptools
    XPOSE_CMAKE_ARGS="-DXPOSE_CUDA_ARCHITECTURES=90" pip install --no-build-isolation ./python

The CUDA backend is built when nvcc is found, as for the C++ build; XPOSE_CMAKE_ARGS adds CMake
arguments (for example -DXPOSE_WITH_CUDA=OFF, or the CUDA architectures to build).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(xpose\s+VERSION\s+([0-9.]+)", text)
    if match is None:
        raise RuntimeError("no project(xpose VERSION ...) in the root CMakeLists.txt")
    return match.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if shutil.which("cmake") is None:
            raise RuntimeError("building xpose needs CMake (apt-get install cmake)")
        build_dir = Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DBUILD_SHARED_LIBS=OFF",  # the module carries the library: nothing to find at run time
            "-DXPOSE_BUILD_PYTHON=ON", "-DXPOSE_BUILD_TESTS=OFF", "-DXPOSE_BUILD_CLI=OFF",
            "-DXPOSE_BUILD_EXAMPLES=OFF", "-DXPOSE_BUILD_CPU_COMPARE=OFF", "-DXPOSE_WITH_NCCL=OFF",
        ]
        if "CMAKE_GENERATOR" not in os.environ and shutil.which("ninja") is not None:
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("XPOSE_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_xpose", "-j", jobs])
        built = list((build_dir / "python" / "xpose").glob("_xpose*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _xpose module in {build_dir}/python/xpose, found {built}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="xpose",
    version=project_version(),
    description="Tensor permutations and matrix transposes at the speed of memory, on CUDA GPUs and CPUs",
    packages=["xpose"],
    ext_modules=[CMakeExtension("xpose._xpose")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.8",
    zip_safe=False,
)
