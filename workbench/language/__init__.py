"""Language awareness: which scripts a text is written in, and whether a model covers them."""
