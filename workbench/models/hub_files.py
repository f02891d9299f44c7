"""Which files of a Hub repository a download fetches, and whether a cached copy is intact.

A model repository often holds the same weights several times (PyTorch, safetensors, ONNX,
OpenVINO, TensorFlow, Flax). sentence-transformers loads the safetensors or PyTorch weights, so
the plan skips the other formats, and ``pytorch_model.bin`` when ``model.safetensors`` is there:
the size shown before a download is what it really fetches.

The Hub's metadata gives every file's size and hash: the sha256 of an LFS file (weights), the
git blob id (a sha1 of ``blob <size>\\0`` and the bytes) of the rest. The cache stores a file
as ``blobs/<etag>`` with ``snapshots/<commit>/<name>`` pointing to it (the cache layout
``huggingface_hub`` documents); ``verify_file`` hashes the snapshot's copy against that metadata.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

#: other frameworks' copies of the weights, never loaded here
SKIPPED_PREFIXES = ("onnx/", "openvino/", "coreml/")
SKIPPED_SUFFIXES = (".h5", ".msgpack", ".ot", ".tflite", ".onnx", ".mlmodel", ".gguf")


@dataclass(frozen=True)
class PlannedFile:
    name: str
    size: int
    sha256: str | None  # LFS files
    blob_id: str | None  # git's object id, for the rest

    @property
    def etag(self) -> str:
        """The name the cache stores its bytes under (``blobs/<etag>``)."""
        return self.sha256 or self.blob_id or ""

    def facts(self) -> dict:
        return {"name": self.name, "size": self.size, "sha256": self.sha256, "blob_id": self.blob_id}


@dataclass(frozen=True)
class HubPlan:
    repo_id: str
    commit: str
    files: tuple[PlannedFile, ...]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def repo_folder(self, cache: Path) -> Path:
        return cache / repo_folder_name(self.repo_id)

    def snapshot(self, cache: Path) -> Path:
        return self.repo_folder(cache) / "snapshots" / self.commit

    def missing(self, cache: Path) -> list[PlannedFile]:
        """The files the cache does not hold yet at the right size (those a download fetches)."""
        snapshot = self.snapshot(cache)
        return [
            f for f in self.files if not (snapshot / f.name).is_file() or (snapshot / f.name).stat().st_size != f.size
        ]

    def discard(self, cache: Path, planned: PlannedFile) -> None:
        """Delete a file's snapshot link and its blob, so the next download fetches it afresh."""
        link = self.snapshot(cache) / planned.name
        target = link.resolve() if link.exists() else None
        link.unlink(missing_ok=True)
        if target is not None and target.is_file():
            target.unlink()
        (self.repo_folder(cache) / "blobs" / planned.etag).unlink(missing_ok=True)

    def set_main_ref(self, cache: Path) -> None:
        """Record the commit as ``main``, so the model is found offline by its name."""
        refs = self.repo_folder(cache) / "refs"
        refs.mkdir(parents=True, exist_ok=True)
        (refs / "main").write_text(self.commit, encoding="utf-8")


def repo_folder_name(repo_id: str) -> str:
    return "models--" + repo_id.replace("/", "--")


def wanted(names: list[str]) -> set[str]:
    """The file names a sentence-transformers model needs out of a repository's listing."""
    keep = {n for n in names if not n.startswith(SKIPPED_PREFIXES) and not n.endswith(SKIPPED_SUFFIXES)}
    for folder_prefix in {n.rpartition("/")[0] for n in keep}:
        prefix = f"{folder_prefix}/" if folder_prefix else ""
        if f"{prefix}model.safetensors" in keep:
            keep.discard(f"{prefix}pytorch_model.bin")
    return keep


def plan_files(repo_id: str) -> HubPlan:
    """Ask the Hub (``HF_ENDPOINT``) for the repository's commit and its files' sizes and hashes."""
    from huggingface_hub import HfApi

    info = HfApi().model_info(repo_id, files_metadata=True)
    siblings = info.siblings or []
    keep = wanted([s.rfilename for s in siblings])
    files = tuple(
        PlannedFile(name=s.rfilename, size=int(s.size or 0), sha256=s.lfs.sha256 if s.lfs else None, blob_id=s.blob_id)
        for s in siblings
        if s.rfilename in keep
    )
    return HubPlan(repo_id=repo_id, commit=info.sha or "", files=files)


def git_blob_id(path: Path) -> str:
    digest = hashlib.sha1(b"blob %d\0" % path.stat().st_size)
    _feed(digest, path)
    return digest.hexdigest()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    _feed(digest, path)
    return digest.hexdigest()


def _feed(digest, path: Path) -> None:
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)


def verify_file(snapshot: Path, planned: PlannedFile) -> str:
    """ "" when the cached copy matches the Hub's metadata, else what is wrong with it."""
    path = snapshot / planned.name
    if not path.is_file():
        return f"{planned.name} is missing from {snapshot}"
    size = path.stat().st_size
    if size != planned.size:
        return f"{planned.name} has {size} bytes, the Hub says {planned.size}"
    if planned.sha256:
        found = sha256_of(path)
        if found != planned.sha256:
            return f"{planned.name} has sha256 {found[:12]}…, the Hub says {planned.sha256[:12]}…"
    elif planned.blob_id:
        found = git_blob_id(path)
        if found != planned.blob_id:
            return f"{planned.name} has git blob id {found[:12]}…, the Hub says {planned.blob_id[:12]}…"
    return ""
