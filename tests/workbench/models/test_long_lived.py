"""A loaded model's objects are kept out of the cyclic collector's walks."""

import gc

from workbench.embedding.registry import get_embedder


def test_loading_a_model_freezes_what_is_alive_so_full_collections_skip_it(tiny_chinese_model_dir):
    gc.unfreeze()
    embedder = get_embedder(str(tiny_chinese_model_dir))
    embedder._model = None  # load again, even if another test loaded it
    assert embedder.embed(["加载之后"]).shape[0] == 1
    assert gc.get_freeze_count() > 10_000  # the model's modules, tensors and tokenizer among them
