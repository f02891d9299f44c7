"""PyTorch with bf16 autocast: the same weights, the matrix products in bfloat16.

Where the CPU has bf16 instructions (AVX-512 BF16, AMX) this is about 1.6x fp32 at a cosine
of 0.9999 to the fp32 vectors; where it has none, autocast emulates it and is slower.
"""

from __future__ import annotations

from workbench.embedding.sentence_transformer import SentenceTransformerEmbedder


class TorchBf16Embedder(SentenceTransformerEmbedder):
    #: autocast decides its casts as the eager pass runs; a traced graph would fix the ones it saw
    traces = False

    def __init__(self, name: str, model: str, precision: str = "bf16") -> None:
        # built like every runtime's class; torch fp32 is the plain SentenceTransformerEmbedder, so this is bf16
        super().__init__(name, model)
        self.precision = precision

    def _arithmetic(self):
        import torch

        return torch.autocast("cpu", dtype=torch.bfloat16)
