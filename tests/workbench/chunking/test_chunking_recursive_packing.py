"""How the recursive splitter packs fitting pieces: even chunk lengths, and real overlap.

Offsets are counted by hand in the comments.
"""

from itertools import pairwise

from workbench.chunking.recursive import RecursiveConfig, split


def texts(markdown: str, size: int, overlap: int = 0) -> list[str]:
    return [chunk.text for chunk in split(markdown, RecursiveConfig(size=size, overlap=overlap))]


def test_chunks_are_even_instead_of_full_then_a_stub():
    # Sentences at 0..10, 11..21, 22..32, 33..43, 44..49. Filling 40 greedily gives 32 + a stub
    # of 16; the same two chunks come out as 21 and 27.
    markdown = "Aaaa aaaa. Bbbb bbbb. Cccc cccc. Dddd dddd. Eeee."
    assert texts(markdown, size=40) == ["Aaaa aaaa. Bbbb bbbb.", "Cccc cccc. Dddd dddd. Eeee."]


def test_evening_out_never_costs_an_extra_chunk():
    # Any even split of these six words into three chunks of at most 13 needs a limit that packs
    # them into four, so greedy packing at the full size stands.
    assert texts("one two three four five six", size=13, overlap=5) == ["one two three", "three four", "four five six"]


def test_overlap_starts_inside_a_long_sentence_at_a_space():
    # Sentences 0..15, 16..31, 32..47 are each longer than the overlap of 10, so no whole one can
    # be repeated; the next chunk starts at the last space that keeps the overlap within 10.
    markdown = "Aaaa aaaa aaaa. Bbbb bbbb bbbb. Cccc cccc cccc."
    assert texts(markdown, size=35, overlap=10) == ["Aaaa aaaa aaaa. Bbbb bbbb bbbb.", "bbbb. Cccc cccc cccc."]


def test_overlap_prefers_a_sentence_start_to_a_space():
    # The paragraph "Aaaa aaaa. Bb bb." (0..17) is longer than the overlap of 8; its last sentence
    # "Bb bb." (11..17) fits, and a sentence end is a coarser separator than the space at 13.
    markdown = "Aaaa aaaa. Bb bb.\n\nCccc cccc cccc."
    assert texts(markdown, size=25, overlap=8) == ["Aaaa aaaa. Bb bb.", "Bb bb.\n\nCccc cccc cccc."]


def test_overlap_never_starts_inside_a_word():
    # Neither 13-character word has a space or sentence end inside, so there is no overlap rather
    # than a fragment such as "aaaa.".
    assert texts("Aaaaaaaaaaaa. Bbbbbbbbbbbb.", size=20, overlap=5) == ["Aaaaaaaaaaaa.", "Bbbbbbbbbbbb."]


def test_neighbours_in_a_paragraph_of_long_sentences_really_overlap():
    # Twenty 89-character sentences: none fits an overlap of 50 whole, so whole-piece overlap
    # would share nothing; every neighbour shares the end of a sentence instead.
    sentence = "Finding {:02d} says the measured effect held in every cohort that was followed up for a year."
    markdown = " ".join(sentence.format(i) for i in range(20))
    chunks = split(markdown, RecursiveConfig(size=300, overlap=50))
    shared = [before.end - after.start for before, after in pairwise(chunks)]
    assert len(chunks) > 3
    assert all(0 < amount <= 50 for amount in shared)
    assert all(markdown[after.start - 1] == " " for after in chunks[1:])  # each starts on a word
