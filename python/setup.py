"""Builds vfilter's native module (_vfilter) with the project's CMake for pip install ./python.

The CMake build directory is VFILTER_BUILD_DIR when set (an existing build of the checkout is
reused: only the module's target is brought up to date), else build-python/ in the checkout.
CMAKE_ARGS adds configure options (for example -DVF_CUDA=OFF). Everything comes from the
distribution (scripts/install_deps.sh, scripts/install_python_deps.sh); nothing is downloaded.
"""

import glob
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the checkout: python/ lives at its root


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
            sys.exit("vfilter: build from a checkout of the repository (pip install ./python there)")
        build = os.environ.get("VFILTER_BUILD_DIR") or os.path.join(ROOT, "build-python")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            args = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DVF_BUILD_TESTS=OFF",
                    f"-DPython_EXECUTABLE={sys.executable}"] + shlex.split(os.environ.get("CMAKE_ARGS", ""))
            subprocess.run(args, check=True)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", build, "--target", "_vfilter", "-j", jobs], check=True)
        built = os.path.join(build, "python", "vfilter", "_vfilter" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not os.path.exists(built):
            found = glob.glob(os.path.join(build, "python", "vfilter", "_vfilter*"))
            sys.exit(f"vfilter: no Python module for this Python ({sys.version.split()[0]}) in {build}: "
                     + (f"it holds {found} (configured for another Python)" if found else
                        "is pybind11 installed? scripts/install_python_deps.sh; CMake says 'Python module OFF' and why"))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(ext_modules=[Extension("vfilter._vfilter", sources=[])], cmdclass={"build_ext": CMakeBuild})
