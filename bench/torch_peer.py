# SPDX-License-Identifier: MIT OR Apache-2.0
"""The PyTorch peer's environment, shared by the comparison scripts: Debian's python3-torch with the
OpenMP OpenBLAS (see ../shared/TOOLCHAIN.md). Call reexec_if_needed() before importing torch: the
BLAS is chosen when torch loads, so the script re-executes itself with LD_LIBRARY_PATH set."""
import os
import sys

PYTHON = "/usr/bin/python3"
OPENBLAS_OMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def reexec_if_needed():
    if not os.path.isdir(OPENBLAS_OMP):  # not Debian's setup (e.g. a pip PyTorch): run as it is
        return
    paths = os.environ.get("LD_LIBRARY_PATH", "").split(":")
    if OPENBLAS_OMP in paths and os.path.realpath(sys.executable) == os.path.realpath(PYTHON):
        return
    script = os.path.abspath(sys.argv[0])
    if os.environ.get("BURN_COMPARE_REEXEC"):
        sys.exit(f"{os.path.basename(script)}: re-exec did not set up the environment; run it with "
                 f"LD_LIBRARY_PATH={OPENBLAS_OMP} {PYTHON}")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join([OPENBLAS_OMP] + [p for p in paths if p])
    env["BURN_COMPARE_REEXEC"] = "1"
    os.execve(PYTHON, [PYTHON, script] + sys.argv[1:], env)
