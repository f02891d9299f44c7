"""Which models exist, what they cover, and whether they are on this machine.

The catalogue holds facts about well-known embedding and rerank models (languages, dimension,
sequence length, download size, licence, query/passage prefixes). Any other model id or local
folder still works: its languages come from its model card when it declares them, else they are
"unknown". ``availability`` checks that a model can be loaded offline and, when it cannot, says
how to download it once.
"""
