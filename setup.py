"""Builds the compiled rules kernel; all other metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pulvezar.rules._kernel",
            sources=["libs/pulvezar/rules/_kernel.c"],
            depends=["libs/pulvezar/rules/movegen.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "pulvezar.eval._features",
            sources=["libs/pulvezar/eval/_features.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "pulvezar.eval._bearoff",
            sources=["libs/pulvezar/eval/_bearoff.c"],
            depends=["libs/pulvezar/rules/movegen.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "pulvezar.eval._forward",
            sources=["libs/pulvezar/eval/_forward.c"],
            depends=["libs/pulvezar/eval/_features.c"],  # included
            # no fused multiply-add: the same sums on every CPU (the AVX2 clone included)
            extra_compile_args=[
                "-O3",
                "-std=c11",
                "-ffp-contract=off",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
            ],
        ),
        Extension(
            "pulvezar.eval._qnet",
            sources=["libs/pulvezar/eval/_qnet.c"],
            depends=["libs/pulvezar/eval/_forward.c", "libs/pulvezar/eval/_features.c"],  # included
            # integer sums, and the dense tail's float sums without fused multiply-add: the same bits
            # from the AVX2 and the portable kernels
            extra_compile_args=[
                "-O3",
                "-std=c11",
                "-ffp-contract=off",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
                "-Wno-unused-function",
            ],
        ),
    ]
)
