"""Models from inside the app, in Chromium, against a local Hub mirror (tests/fake_hub.py).

One server, started with ``HF_ENDPOINT`` at the mirror and an empty Hugging Face cache. The walk:
download a tiny embedding model from the Models page (the connection drops halfway through its
weights and the download resumes with a Range request; progress is shown), download a tiny
cross-encoder (its first copy arrives corrupt: refused and removed; the second is verified),
create a collection with the embedding model and ingest a note, ask a question in the lab with
the cross-encoder as side A's rerank model (a real rerank stage, no fallback note), then remove
both models. Screenshots land in test-artifacts/browser/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.browser.app_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, STEP_S, serve, settle
from tests.conftest import save_tiny_sentence_model
from tests.fake_hub import FakeHub

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CHROMIUM.exists(), reason=NEEDS_CHROMIUM)]

EMBED = "tiny/embed-model"
RERANKER = "tiny/cross-encoder"
WEIGHTS = "model.safetensors"
CHUNK = 10 * 1024 * 1024  # huggingface_hub writes what it read in chunks of this size
NOTE = (
    "# Tide pools\n\nTide pools hold sea anemones, hermit crabs and starfish. At low tide the pools are cut off "
    "from the sea and warm up in the sun.\n\n## Anemones\n\nAn anemone closes its tentacles when the water "
    "drains away.\n"
)


@pytest.fixture(scope="module")
def hub(tmp_path_factory, tiny_cross_encoder_dir: Path):
    fake = FakeHub().start()
    # weights just over one read chunk, so a connection dropped after it leaves bytes to resume from
    fake.add_folder(
        EMBED, save_tiny_sentence_model(tmp_path_factory.mktemp("hub") / "tiny-embed", ("en",), hidden_size=96)
    )
    fake.add_folder(RERANKER, tiny_cross_encoder_dir)
    fake.throttle_s = 0.06  # slow enough for the progress bar to be seen
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def app(hub, tmp_path_factory):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    cache = tmp_path_factory.mktemp("hf-cache")
    saved = {key: os.environ.get(key) for key in ("HF_ENDPOINT", "HF_HUB_CACHE")}
    os.environ.update(HF_ENDPOINT=hub.url, HF_HUB_CACHE=str(cache))
    try:
        with serve(tmp_path_factory.mktemp("browser-models-home"), "streamlit-server-models.log") as url:
            yield url, cache
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def success(page, text: str):
    """The success message holding ``text`` (not a stale status label from the run before)."""
    return page.get_by_test_id("stAlertContentSuccess").get_by_text(text).first


def pick(page, widget_key: str, option: str) -> None:
    """Choose ``option`` (a prefix of its label) in the selectbox with ``widget_key``."""
    page.locator(f".st-key-{widget_key} input").click()
    page.keyboard.type(option)  # the list narrows to the labels that hold it
    page.get_by_role("option", name=option).first.click()
    settle(page)


def download_by_id(page, name: str, *, expect_progress: bool = True):
    from playwright.sync_api import expect

    page.locator(".st-key-models_other_id input").fill(name, timeout=STEP_S * 1000)
    page.locator(".st-key-models_other_id input").press("Enter")
    settle(page)
    button = page.get_by_role("button", name=f"Download {name}")
    button.click()
    if expect_progress:
        # the size first (from the Hub's metadata), then the bytes as they arrive
        expect(page.get_by_text(re.compile(r"MB to fetch \(\d+ files, [\d.]+ MB in all")).first).to_be_visible(
            timeout=STEP_S * 1000
        )
        expect(page.get_by_text(re.compile(r"^[\d.]+ [kM]B of [\d.]+ MB")).first).to_be_visible(timeout=STEP_S * 1000)
        page.screenshot(path=str(ARTIFACTS / f"models-progress-{name.replace('/', '-')}.png"))


def test_download_use_and_remove_models_from_the_app(app, hub) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, cache = app
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        main = page.get_by_test_id("stMain")
        try:
            page.goto(f"{url}/models")
            expect(main.get_by_role("heading", name="Models", exact=True)).to_be_visible(timeout=STEP_S * 1000)
            settle(page)

            # 1. the embedding model: the connection drops after the first chunk of its weights
            hub.drop_after[WEIGHTS] = (CHUNK + 200_000, 1)
            download_by_id(page, EMBED)
            expect(success(page, f"Downloaded and verified {EMBED}")).to_be_visible(timeout=STEP_S * 1000)
            assert hub.gets(WEIGHTS)[-2:] == ["", f"bytes={CHUNK}-"]  # resumed where it broke off
            settle(page)

            # 2. the cross-encoder: the first copy of its weights is corrupt, refused and removed
            hub.corrupt.add(WEIGHTS)
            download_by_id(page, RERANKER)
            expect(
                page.get_by_test_id("stAlertContentError").get_by_text(
                    "failed verification against the Hub's metadata and was removed"
                )
            ).to_be_visible(timeout=STEP_S * 1000)
            page.screenshot(path=str(ARTIFACTS / "models-corrupt-refused.png"))
            assert not list((cache / "models--tiny--cross-encoder").rglob(WEIGHTS))
            hub.corrupt.clear()
            page.get_by_role("button", name=f"Download {RERANKER}").click()
            expect(success(page, f"Downloaded and verified {RERANKER}")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            page.screenshot(path=str(ARTIFACTS / "models-both-downloaded.png"), full_page=True)

            # 3. a collection embedded by the downloaded model
            page.get_by_test_id("stSidebar").get_by_role("link", name="Documents").click()
            expect(main.get_by_role("heading", name="Documents", exact=True)).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            pick(page, "new_collection_model", EMBED)
            page.locator(".st-key-new_collection_name input").fill("tides")
            page.locator(".st-key-create_collection button").click()
            expect(success(page, "Created collection tides")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                files=[{"name": "tide-pools.md", "mimeType": "text/markdown", "buffer": NOTE.encode()}]
            )
            page.locator(".st-key-ingest_uploads button").click()
            expect(main.locator("p", has_text="Last upload")).to_contain_text(
                "tides: 1 file: 1 new", timeout=STEP_S * 1000
            )
            settle(page)

            # 4. a query whose rerank stage is the downloaded cross-encoder's
            page.get_by_test_id("stSidebar").get_by_role("link", name="Retrieval lab").click()
            expect(page.locator(".st-key-lab_query input")).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            page.locator(".st-key-side_a").get_by_text("Configuration", exact=True).click()  # starts folded
            settle(page)
            pick(page, "lab_a_rerank-model", RERANKER)
            query = page.locator(".st-key-lab_query input")
            query.fill("What closes its tentacles at low tide?")
            query.press("Enter")
            side_a = page.locator(".st-key-side_a")
            expect(side_a.get_by_role("radio", name=re.compile(r"^rerank · "))).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            expect(side_a.get_by_text("fell back")).to_have_count(0)
            page.screenshot(path=str(ARTIFACTS / "models-lab-rerank.png"), full_page=True)

            # 5. remove both
            page.get_by_test_id("stSidebar").get_by_role("link", name="Models").click()
            expect(main.get_by_role("heading", name="Models", exact=True)).to_be_visible(timeout=STEP_S * 1000)
            settle(page)
            for name in (EMBED, RERANKER):
                page.get_by_role("button", name=f"Remove {name}").click()
                settle(page)  # the page asks first
                page.get_by_role("button", name=f"Yes, remove {name}").click()
                expect(success(page, f"Removed {name}")).to_be_visible(timeout=STEP_S * 1000)
                settle(page)
            assert not (cache / "models--tiny--embed-model").exists()
            assert not (cache / "models--tiny--cross-encoder").exists()
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "models-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
