"""The download itself, run as a child process: ``python -m workbench.models.fetch REPO KEEP_FREE_BYTES``.

It runs apart because the app and the CLI keep ``HF_HUB_OFFLINE=1``, which ``huggingface_hub``
reads once, at import; the child imports it with the hub switched online. It talks to its parent
in JSON lines on stdout, one event a line:

``plan``      the files it will fetch (sizes and hashes from the Hub's metadata) and the bytes
              still to download, before any byte of weights moves;
``progress``  bytes done of the total, as they arrive;
``done``      the verified snapshot folder; or
``error``     ``kind`` (offline, not_found, disk, corrupt, interrupted, failed) and a message.

Each file goes through ``hf_hub_download`` into the shared Hugging Face cache, pinned to the
planned commit. A file already in the cache is not fetched again, so a download cut short picks
up where it stopped; inside a file, the library resumes a dropped connection with a Range request.
Every file is then checked against the Hub's metadata (size; sha256 for LFS files, the git blob
id for the rest) and a file that fails is deleted, so a corrupt copy never loads.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from workbench.models.hub_files import HubPlan, plan_files, verify_file
from workbench.text import first_line


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


class _Progress:
    """A tqdm stand-in ``huggingface_hub`` drives per file; it reports bytes to the parent."""

    done_before = 0  # bytes of files finished before this one
    total = 0
    file_name = ""
    _last = 0.0

    def __init__(self, *args, total=None, initial=0, **kwargs) -> None:
        self.n = initial or 0
        self._report(force=True)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._report()

    def _report(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - _Progress._last > 0.1:
            _Progress._last = now
            emit("progress", file=_Progress.file_name, done=_Progress.done_before + self.n, total=_Progress.total)

    def close(self) -> None:
        pass

    def set_description(self, *args, **kwargs) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def classify(error: BaseException, *, started: bool) -> str:
    """What went wrong, by the exception's class (``huggingface_hub`` 2.x talks through ``httpx2``)."""
    from huggingface_hub.errors import GatedRepoError, LocalEntryNotFoundError, RepositoryNotFoundError

    kinds = {type(e).__name__ for e in (error, error.__cause__, error.__context__) if e is not None}
    if isinstance(error, (GatedRepoError, RepositoryNotFoundError)):
        return "not_found"
    if isinstance(error, OSError) and getattr(error, "errno", None) == 28:  # ENOSPC
        return "disk"
    unreachable = kinds & {"ConnectError", "ConnectTimeout", "OfflineModeIsEnabled"}
    if unreachable and not started:
        return "offline"
    if started and (
        unreachable
        or isinstance(error, (LocalEntryNotFoundError, OSError))
        or kinds & {"RemoteProtocolError", "ReadTimeout", "ReadError", "HfHubHTTPError"}
    ):
        return "interrupted"
    return "failed"


def fetch(repo_id: str, keep_free: int) -> int:
    from huggingface_hub import constants, hf_hub_download

    cache = Path(constants.HF_HUB_CACHE)
    try:
        plan: HubPlan = plan_files(repo_id)
    except Exception as error:  # every failure goes back to the parent as one clear event
        emit("error", kind=classify(error, started=False), message=first_line(error, with_type=True))
        return 1
    missing = plan.missing(cache)
    to_fetch = sum(f.size for f in missing)
    emit(
        "plan",
        repo=repo_id,
        commit=plan.commit,
        files=[f.facts() for f in plan.files],
        total=plan.total_bytes,
        to_fetch=to_fetch,
    )
    cache.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(cache).free
    if to_fetch and free - to_fetch < keep_free:
        emit("error", kind="disk", message=f"needs {to_fetch} bytes, {free} bytes free", needed=to_fetch, free=free)
        return 1
    _Progress.total = plan.total_bytes
    _Progress.done_before = plan.total_bytes - to_fetch
    for hub_file in plan.files:
        if hub_file not in missing:
            continue
        _Progress.file_name = hub_file.name
        try:
            hf_hub_download(repo_id, hub_file.name, revision=plan.commit, tqdm_class=_Progress)
        except Exception as error:
            message = first_line(error, with_type=True)
            emit("error", kind=classify(error, started=True), message=message, file=hub_file.name)
            return 1
        _Progress.done_before += hub_file.size
    folder = plan.snapshot(cache)
    for hub_file in plan.files:
        problem = verify_file(folder, hub_file)
        if problem:
            plan.discard(cache, hub_file)
            emit("error", kind="corrupt", message=problem, file=hub_file.name)
            return 1
    plan.set_main_ref(cache)
    emit("done", folder=str(folder))
    return 0


if __name__ == "__main__":
    sys.exit(fetch(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0))
