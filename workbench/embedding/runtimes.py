"""Encoder runtimes: what runs a model's forward pass, and falling back when one cannot.

Each runtime is a small module with an embedder class, registered in ``RUNTIMES`` (a
``workbench.plugins.Registry``, whose names are ``embedding.runtime``'s and ``rerank.runtime``'s
choices) with the package it needs and the precisions it runs. An embedder key
(``EmbeddingConfig.key``) is the model, plus ``@runtime-precision`` unless it is torch fp32: the
cache, the layouts and the registry all read it, so vectors of different runtimes never mix.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from workbench.config import AUTO_RUNTIME, ConfigError, WorkbenchConfig, embedding_settings
from workbench.embedding.base import Embedder
from workbench.models.availability import ModelNotAvailableError
from workbench.plugins import Registry

TORCH_FP32 = ("torch", "fp32")


class RuntimeEmbedderClass(Protocol):
    """A runtime's embedder class, built from the embedder key, the model and the precision."""

    def __call__(self, name: str, model: str, precision: str) -> Embedder: ...


@dataclass(frozen=True)
class Runtime:
    name: str
    #: the package that must import for the runtime to run (what ``pip install`` names)
    package: str
    precisions: tuple[str, ...]
    #: the embedder class, imported only when the runtime is used (its package is heavy)
    load_embedder: Callable[[], RuntimeEmbedderClass]


def _torch() -> RuntimeEmbedderClass:
    from workbench.embedding.torch_runtime import TorchBf16Embedder

    return TorchBf16Embedder


def _openvino() -> RuntimeEmbedderClass:
    from workbench.embedding.openvino_runtime import OpenVinoEmbedder

    return OpenVinoEmbedder


def _onnx() -> RuntimeEmbedderClass:
    from workbench.embedding.onnx_runtime import OnnxEmbedder

    return OnnxEmbedder


#: every encoder runtime by name: what ``embedding.runtime`` and ``rerank.runtime`` choose among
RUNTIMES: Registry[Runtime] = Registry("encoder runtime")
RUNTIMES.register("torch", Runtime("torch", "torch", ("fp32", "bf16"), _torch))
# openvino int8 is static, per channel (NNCF); onnx int8 dynamic, per channel (onnx_runtime.py)
RUNTIMES.register("openvino", Runtime("openvino", "openvino", ("fp32", "bf16", "int8"), _openvino))
RUNTIMES.register("onnx", Runtime("onnx", "onnxruntime", ("fp32", "int8"), _onnx))


class RuntimeUnavailableError(ModelNotAvailableError):
    """A runtime cannot run here (package missing, model not exportable, no bf16 in the CPU)."""


def runtime_key(runtime: str, precision: str) -> str:
    return f"{runtime}-{precision}"


def split_key(key: str) -> tuple[str, str, str]:
    """(model, runtime, precision) of an embedder key."""
    found = embedding_settings(key)
    return found["embedding.model"], found["embedding.runtime"], found["embedding.precision"]


#: set to 1, the CPU counts as one without bf16 whatever its flags: bench_encode's emulation of a
#: laptop CPU on a machine with AMX (bf16 runtimes refused, OpenVINO compiled with an f32 hint)
NO_BF16_ENV = "WORKBENCH_NO_BF16"


def cpu_has_bf16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool | None:
    """Whether the CPU computes bf16 natively (AVX-512 BF16, AMX, Arm BF16); None when unknown."""
    if os.environ.get(NO_BF16_ENV, "").strip() == "1":
        return False
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    flags = {
        word
        for line in text.splitlines()
        if line.lower().startswith(("flags", "features"))
        for word in line.split(":", 1)[-1].split()
    }
    return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})


def check_runtime(runtime: str, precision: str, section: str = "embedding") -> None:
    """Raise ``RuntimeUnavailableError`` naming the setting (``section``.runtime) and the cause when
    this machine cannot run ``runtime`` at ``precision`` (checked without loading a model)."""
    if runtime not in RUNTIMES:
        raise RuntimeUnavailableError(
            f"{section}.runtime={runtime} is not a runtime; known: {', '.join(RUNTIMES.names())}"
        )
    spec = RUNTIMES.get(runtime)
    if precision not in spec.precisions:
        raise RuntimeUnavailableError(
            f"{section}.precision={precision} is not available with {section}.runtime="
            f"{runtime}; it allows {', '.join(spec.precisions)}"
        )
    try:
        found = importlib.util.find_spec(spec.package) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise RuntimeUnavailableError(
            f"{section}.runtime={runtime} needs the {spec.package!r} package, which is not "
            f"installed; pip install {spec.package}"
        )
    if precision == "bf16" and cpu_has_bf16() is False:
        raise RuntimeUnavailableError(
            f"{section}.precision=bf16: this CPU has no bf16 instructions (avx512_bf16, "
            "amx_bf16), so bf16 would be emulated and slower than fp32"
        )


def runtime_embedder(key: str) -> Embedder:
    """The embedder for an embedder key; the weights load (and export) on first use."""
    model, runtime, precision = split_key(key)
    from workbench.embedding.sentence_transformer import SentenceTransformerEmbedder

    if (runtime, precision) == TORCH_FP32:
        return SentenceTransformerEmbedder(key, model)
    check_runtime(runtime, precision)
    try:
        embedder_class = RUNTIMES.get(runtime).load_embedder()
    except ImportError as error:
        raise RuntimeUnavailableError(f"embedding.runtime={runtime}: {error}") from None
    return embedder_class(key, model, precision)


@dataclass(frozen=True)
class Opened:
    """An embedder that has encoded a probe, or torch fp32 and the note saying why not."""

    embedder: Embedder
    runtime: str
    precision: str
    note: str = ""


def open_runtime(
    model: str, runtime: str, precision: str, embedder_for: Callable[[str], Embedder] | None = None
) -> Opened:
    """``model`` on ``runtime`` at ``precision``, loaded (and exported) and tried on a probe text;
    when that fails, torch fp32 with a note naming the setting and the cause.

    ``embedder_for`` makes the embedder of a key (a new one by default). A new collection passes
    the registry's ``get_embedder``, so the ingest and the queries that follow reuse the loaded
    model; calibration, which tries every runtime once, keeps none of them.
    """
    make = embedder_for or runtime_embedder
    if (runtime, precision) == TORCH_FP32:
        return Opened(make(model), *TORCH_FP32)
    key = f"{model}@{runtime_key(runtime, precision)}"
    try:
        embedder = make(key)
        embedder.embed(["a probe sentence"])
    except Exception as error:  # a missing package, an unsupported model, a failed export: all fall back
        cause = (str(error).strip().splitlines() or [type(error).__name__])[0]
        note = (
            f"embedding.runtime={runtime}, embedding.precision={precision} could not run {model!r} "
            f"({cause}); using torch fp32 instead"
        )
        return Opened(make(model), *TORCH_FP32, note=note)
    return Opened(embedder, runtime, precision)


def collection_runtime(stored: dict) -> tuple[str, str]:
    """The runtime a collection's vectors were made with, from its stored settings: a collection
    made before runtimes existed (no key) was made with torch fp32."""
    runtime = stored.get("embedding.runtime", "torch")
    if runtime not in RUNTIMES:  # "auto" is resolved when a collection is made; never stored
        return TORCH_FP32
    return runtime, stored.get("embedding.precision", "fp32")


def keep_collection_runtime(collection: str, stored: dict, config: WorkbenchConfig) -> WorkbenchConfig:
    """``config`` on the collection's own runtime: ``auto`` becomes it, another one is refused,
    because a query vector from one runtime against chunk vectors from another is a silent
    mismatch, and a second layout of the same chunks would embed them all again."""
    built = collection_runtime(stored)
    asked = (config.embedding.runtime, config.embedding.precision)
    if asked == built:
        return config
    if config.embedding.runtime == AUTO_RUNTIME:
        return config.with_overrides([f"embedding.runtime={built[0]}", f"embedding.precision={built[1]}"])
    raise _refusal(collection, built, asked)


def check_collection_runtime(collection: str, stored: dict, config: WorkbenchConfig) -> None:
    """Refuse ``config`` when the vectors it would use are not the collection's runtime's (an
    unresolved ``auto`` means torch fp32 here: the configuration did not come from the collection)."""
    _, runtime, precision = split_key(config.embedding.key)
    built = collection_runtime(stored)
    if (runtime, precision) != built:
        raise _refusal(collection, built, (runtime, precision))


def _refusal(collection: str, built: tuple[str, str], asked: tuple[str, str]) -> ConfigError:
    return ConfigError(
        f"collection {collection!r} was embedded with embedding.runtime={built[0]}, embedding.precision={built[1]}; "
        f"it cannot be used with embedding.runtime={asked[0]}, embedding.precision={asked[1]} (vectors of two "
        f"runtimes do not mix). Drop that setting (or set embedding.runtime={built[0]} embedding.precision="
        f"{built[1]}), or build a new collection with the runtime you want"
    )
