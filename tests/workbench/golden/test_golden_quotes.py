"""Finding a quote in a document's Markdown: exact, then whitespace-normalised, then with the
whitespace next to CJK characters optional; the span is always the document's own text."""

from __future__ import annotations

from workbench.golden.quotes import CJK_WHITESPACE, EXACT, WHITESPACE, find_quote

MARKDOWN = "# Guide\n\nSet the walrus option\nto true  when the cluster grows. Then restart.\n"


def test_an_exact_quote_gives_its_offsets():
    found = find_quote(MARKDOWN, "Then restart.")
    assert (found.start, found.end, found.method) == (MARKDOWN.index("Then"), len(MARKDOWN) - 1, EXACT)
    assert found.text(MARKDOWN) == "Then restart."


def test_whitespace_runs_match_any_whitespace_and_the_span_keeps_the_documents_own():
    found = find_quote(MARKDOWN, "Set the walrus option to true when the cluster grows.")
    assert found.method == WHITESPACE
    assert found.start == 9 and found.end == 9 + len("Set the walrus option\nto true  when the cluster grows.")
    assert found.text(MARKDOWN) == "Set the walrus option\nto true  when the cluster grows."


def test_leading_and_trailing_spaces_of_the_quote_do_not_matter():
    assert find_quote(MARKDOWN, "  Then restart.\n").method == EXACT


def test_latin_words_are_never_joined_or_split():
    assert find_quote(MARKDOWN, "Setthe walrus option") is None
    assert find_quote(MARKDOWN, "Set the wal rus option") is None


def test_a_changed_word_or_mark_is_not_found():
    assert find_quote(MARKDOWN, "Set the walrus option to false") is None
    assert find_quote(MARKDOWN, "Then restart!") is None
    assert find_quote(MARKDOWN, "   ") is None


CHINESE = "# 手册\n\n检索增强生成先从知识库中找出相关段落，再让大模型据\n此作答。它把参数记忆和 RAG 文档结合。\n"


def test_chinese_exact():
    found = find_quote(CHINESE, "它把参数记忆和 RAG 文档结合。")
    assert found.method == EXACT and found.text(CHINESE) == "它把参数记忆和 RAG 文档结合。"


def test_chinese_line_break_inside_a_sentence_matches_a_quote_without_it():
    quote = "检索增强生成先从知识库中找出相关段落，再让大模型据此作答。"
    found = find_quote(CHINESE, quote)
    assert found.method == CJK_WHITESPACE
    assert found.start == CHINESE.index("检索") and found.end == CHINESE.index("它")
    assert found.text(CHINESE) == "检索增强生成先从知识库中找出相关段落，再让大模型据\n此作答。"


def test_a_space_the_model_put_between_chinese_characters_is_optional_too():
    found = find_quote(CHINESE, "它把 参数记忆和RAG文档 结合。")
    assert found.method == CJK_WHITESPACE and found.text(CHINESE) == "它把参数记忆和 RAG 文档结合。"


def test_a_chinese_quote_with_a_changed_character_is_not_found():
    assert find_quote(CHINESE, "检索增强生成先从数据库中找出相关段落") is None


def test_latin_inside_a_chinese_quote_still_needs_its_word_breaks():
    text = "使用 hybrid search 方法。"
    assert find_quote(text, "使用hybrid search方法。").method == CJK_WHITESPACE
    assert find_quote(text, "使用hybridsearch方法。") is None


def test_the_first_occurrence_wins():
    text = "Same line.\nSame line.\n"
    assert find_quote(text, "Same line.").start == 0


BOILERPLATE = "本章内容仅供参考，以最新制度为准。"


def test_every_place_a_repeated_sentence_occurs_is_found_however_it_is_broken():
    from workbench.golden.quotes import find_quotes

    chapters = [f"## 第{i}章\n\n正文{i}。" for i in range(4)]
    # the third copy is broken across lines the way a PDF breaks Chinese text
    copies = [BOILERPLATE, BOILERPLATE, "本章内容仅供参\n考，以最新制度为准。", BOILERPLATE]
    markdown = "\n\n".join(f"{chapter}{copy}" for chapter, copy in zip(chapters, copies, strict=True))
    found = find_quotes(markdown, BOILERPLATE)
    assert [f.text(markdown) for f in found] == copies
    assert [f.method for f in found] == [EXACT, EXACT, CJK_WHITESPACE, EXACT]
    starts, position = [], -1
    for copy in copies:
        position = markdown.index(copy, position + 1)
        starts.append(position)
    assert [f.start for f in found] == starts
    assert find_quotes(markdown, "以旧制度为准。") == []

    english = "Then restart.\nSet it.  Then\nrestart. Then restart."
    found = find_quotes(english, "Then restart.")
    assert [(f.start, f.method) for f in found] == [(0, EXACT), (23, WHITESPACE), (37, EXACT)]
    assert find_quotes(english, "Then restarted.") == []
