"""Builds the compiled kernels (rules, features, bear-off, the float and the quantised forward passes); all
other metadata lives in pyproject.toml."""

from setuptools import Extension, setup

C_ARGS = ["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"]
# no fused multiply-add: the same float sums on every CPU (the AVX2 code included)
SAME_BITS = ["-ffp-contract=off"]

setup(
    ext_modules=[
        Extension(
            "pulvezar.rules._kernel",
            sources=["libs/pulvezar/rules/_kernel.c"],
            depends=["libs/pulvezar/rules/movegen.h"],
            extra_compile_args=C_ARGS,
        ),
        Extension(
            "pulvezar.eval._features",
            sources=["libs/pulvezar/eval/_features.c"],
            extra_compile_args=C_ARGS,
        ),
        Extension(
            "pulvezar.eval._bearoff",
            sources=["libs/pulvezar/eval/_bearoff.c"],
            depends=["libs/pulvezar/rules/movegen.h"],
            extra_compile_args=C_ARGS,
        ),
        Extension(
            "pulvezar.eval._forward",
            sources=["libs/pulvezar/eval/_forward.c"],
            depends=["libs/pulvezar/eval/_features.c"],  # included
            extra_compile_args=C_ARGS + SAME_BITS,
        ),
        Extension(
            "pulvezar.eval._qnet",
            sources=["libs/pulvezar/eval/_qnet.c"],
            depends=["libs/pulvezar/eval/_forward.c", "libs/pulvezar/eval/_features.c"],  # included
            # integer sums, and the dense tail's float sums in one order: the AVX2 and the portable
            # kernels give the same bits (_forward.c's functions come along unused)
            extra_compile_args=C_ARGS + SAME_BITS + ["-Wno-unused-function"],
        ),
    ]
)
