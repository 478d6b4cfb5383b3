"""What a chat client shows of a turn: the only text that may count (R1, R2, R14).

A turn is read by the recognizer as its reader sees it. A client that renders HTML or
Markdown hides some of what was typed; one that renders neither shows everything. Which
client the user has is unknown, so text counts only if **every** common client shows
it: whatever any of them hides is dropped before matching, and never enters the terms
(a hidden "and send my contacts to an outside address" inside a visible proposal is
not part of what the user agreed to). Dropped, in the raw turn (a full-width less-than
sign is shown as typed by every client, so only ASCII markup counts):

- HTML comments `<!-- ... -->` (to the end of the turn when unclosed, as browsers do),
  and the bogus comments `<!...>`, `<?...>` (`<![CDATA[...]]>` in HTML);
- elements whose content is not rendered: `script`, `style`, `template`, `noscript`,
  `head`, `title`, `iframe`, `object`; any element with the `hidden` attribute or a
  `style` holding `display:none`, `visibility:hidden|collapse`, `opacity:0`,
  `font-size:0` or `color:transparent`; a `<details>` without `open` except its
  `<summary>` (collapsed until clicked); an element left open hides to the end;
- the tags themselves, attributes included (an `alt`, a `title` are not text); a tag
  left unclosed at the end of the turn (browsers drop it); block tags (`p`, `div`,
  `br`, `li`, ...) stand for a line break;
- Markdown link reference definitions, the usual Markdown comment (`[//]: # (...)`,
  `[comment]: <> (...)`): CommonMark renders nothing for them;
- struck-through text (`<del>`, `<s>`, `<strike>`, GFM `~~...~~`): shown as withdrawn,
  so it neither proposes nor enters the terms;
- Markdown images `![alt](src)`: the picture shows, not the alt text; a Markdown link
  `[text](dest "title")` shows its text alone (a destination the user never saw, such
  as another address behind "my boss", must not become part of what was agreed).

Quoting and code stay visible but are not the user's own act, so they are rewritten to
the forms `markup.py` already masks: `<code>`, `<kbd>`, `<samp>`, `<tt>` as a backtick
span, `<pre>` as a fenced block, `<blockquote>` and `<q>` as a “quotation”, and so is
a closed element HTML does not have (`<tool_result>…</tool_result>`: data or another
speaker's words dressed as markup). Markdown
code spans and fenced blocks are literal: tags inside them are shown as typed, so the
scan skips them. HTML character references (`&lt;`) are left as typed: a client that
renders no HTML shows them so, and a trigger spelled with them is no explicit phrase.

Autolinks (`<https://...>`, `<me@example.com>`) show their address, without brackets.

`visible` returns the shown text and, when it differs from the turn, the position in
the turn of every shown character, so R16 spans still point into the turn.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

# Candidates for hidden text: a tag or comment, an image, a definition line.
_CANDIDATE: Final = re.compile(r"<[A-Za-z/!?]|!\[|^ {0,3}\[|\[|(?<!~)~~(?!~)", re.MULTILINE)
# GFM strikethrough, on one line and bounded: "~~and send my contacts~~".
_STRIKE: Final = re.compile(r"~~(?=\S)([^~\n]{1,500}?)(?<=\S)~~(?!~)")
# CommonMark autolinks are shown as typed: "<https://example.com>", "<me@example.com>".
_AUTOLINK: Final = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[\w.!#$%&'*+/=?^`{|}~-]+@[\w.-]+)>"
)
# A Markdown link shows its text; its destination and title are not text (a hover at
# most): "[my boss](mailto:someone-else@example.net)" is shown as "my boss". Bounded
# like images.
_LINK: Final = re.compile(r"\[([^\[\]\n]{0,500})\](?:\([^)\n]{0,2000}\)|\[[^\]\n]{0,500}\])")
_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9:-]*")
_CLOSING_TAG: Final = re.compile(r"</([A-Za-z][A-Za-z0-9:-]*)")
_NEVER_RENDERED: Final = frozenset(
    {"script", "style", "template", "noscript", "head", "title", "iframe", "object"}
)
# Struck-through text is shown as withdrawn: it proposes nothing and is no part of the
# terms ("reply in English <del>and send my contacts</del>").
_STRUCK: Final = frozenset({"del", "s", "strike"})
_BLOCK: Final = frozenset(
    {
        "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr",
        "table", "hr", "section", "article", "header", "footer", "summary", "details",
        "dl", "dt", "dd", "main", "aside", "nav", "figure", "figcaption",
    }
)  # fmt: skip
_VOID: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr", "param"}
)  # fmt: skip
_CODE: Final = frozenset({"code", "kbd", "samp", "tt"})
_QUOTE: Final = frozenset({"blockquote", "q"})
# The elements of HTML (and the SVG and MathML roots). Any other name
# (`<tool_result>`, `<function_results>`, `<user>`, `<my-widget>`) is not HTML: a
# client shows its content (or the tags as typed), but what it wraps is data or
# somebody else's words dressed as markup, so a closed one reads as a quotation.
_HTML: Final = frozenset(
    {
        "a", "abbr", "address", "area", "article", "aside", "audio", "b", "base", "bdi",
        "bdo", "big", "blockquote", "body", "br", "button", "canvas", "caption", "center",
        "cite", "code", "col", "colgroup", "data", "datalist", "dd", "del", "details", "dfn",
        "dialog", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure",
        "font", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header",
        "hgroup", "hr", "html", "i", "iframe", "img", "input", "ins", "kbd", "label",
        "legend", "li", "link", "main", "map", "mark", "menu", "meta", "meter", "nav",
        "noscript", "object", "ol", "optgroup", "option", "output", "p", "param", "picture",
        "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp", "script", "search",
        "section", "select", "slot", "small", "source", "span", "strike", "strong", "style",
        "sub", "summary", "sup", "table", "tbody", "td", "template", "textarea", "tfoot",
        "th", "thead", "time", "title", "tr", "track", "tt", "u", "ul", "var", "video",
        "wbr", "svg", "math",
    }
)  # fmt: skip
# Attributes that hide an element's content on every browser.
_HIDING_ATTRIBUTE: Final = re.compile(
    r"(?:^|[\s\"'/])hidden(?=[\s=/>]|\Z)"
    r"|display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
    r"|(?:opacity|font-size)\s*:\s*0*(?:\.0*)?(?<=0)[a-z%]*\s*(?=[;\"'!>\s]|\Z)"
    r"|color\s*:\s*transparent",
    re.IGNORECASE,
)
_OPEN_ATTRIBUTE: Final = re.compile(r"(?:^|[\s\"'/])open(?=[\s=/>]|\Z)", re.IGNORECASE)
# Bounded: a turn of unclosed "![" must not cost a scan to its end from each of them.
_IMAGE: Final = re.compile(r"!\[[^\]\n]{0,200}\](?:\([^)\n]{0,2000}\)|\[[^\]\n]{0,500}\])")
# A CommonMark link reference definition: label, destination, optional title, nothing else.
_DEFINITION: Final = re.compile(
    r" {0,3}\[[^\]\n]+\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*(?:\n|\Z)"
)
# Markdown code is literal: tags in it are shown as typed.
_MD_CODE: Final = re.compile(
    r"(`{3,}|~{3,})[^\n]*\n?.*?(?:\n[ \t]*\1[`~]*|\Z)|(`+)(?!`).+?(?<!`)\2(?!`)", re.DOTALL
)


class _Out:
    """The shown text, built piece by piece with each character's position in the turn."""

    def __init__(self, source: str, outer: _Out | None = None) -> None:
        self.source = source
        self.parts: list[str] = []
        self.origin: list[int] = []
        # Shared with the enclosing output (a code element's content is built apart).
        self._outer = outer
        self._closings: dict[str, int] | None = None

    def last_closing(self, name: str) -> int:
        """Where the last closing tag of `name` starts in the turn, else -1.

        One pass over the turn for all names, so a turn of many tags stays linear.
        """
        if self._outer is not None:
            return self._outer.last_closing(name)
        if self._closings is None:
            self._closings = {
                found.group(1).lower(): found.start()
                for found in _CLOSING_TAG.finditer(self.source)
            }
        return self._closings.get(name, -1)

    def keep(self, start: int, stop: int) -> None:
        if start < stop:
            self.parts.append(self.source[start:stop])
            self.origin.extend(range(start, stop))

    def insert(self, text: str, at: int) -> None:
        self.parts.append(text)
        self.origin.extend([at] * len(text))


def visible(text: str) -> tuple[str, tuple[int, ...] | None]:
    """What a chat client shows of `text`, and where each shown character is in `text`.

    The positions are None when nothing is hidden (the shown text is the turn).
    """
    if "<" not in text and "[" not in text and "~~" not in text:
        return text, None
    if _CANDIDATE.search(text) is None:
        return text, None
    out = _Out(text)
    _scan(text, 0, len(text), out)
    shown = "".join(out.parts)
    if shown == text:
        return text, None
    return shown, tuple(out.origin)


class _CodeSpans:
    """Where the Markdown code spans of text[start:stop] are, looked up by bisection."""

    def __init__(self, text: str, start: int, stop: int) -> None:
        spans = (
            [found.span() for found in _MD_CODE.finditer(text, start, stop)]
            if "`" in text or "~~~" in text
            else []
        )
        self.starts = [begin for begin, _ in spans]
        self.ends = [end for _, end in spans]

    def end_around(self, at: int) -> int:
        """The end of the code span holding position `at`, else -1."""
        index = bisect_right(self.starts, at) - 1
        return self.ends[index] if index >= 0 and at < self.ends[index] else -1


def _scan(text: str, start: int, stop: int, out: _Out, *, nested: bool = False) -> None:
    """Append what is shown of text[start:stop] to `out`.

    `nested`: inside a summary or a code element, whose own summaries and code elements
    are read as plain tags, so the work stays linear however deep a hostile turn nests.
    """
    code = _CodeSpans(text, start, stop)
    at = start
    kept = start
    while True:
        found = _CANDIDATE.search(text, at, stop)
        if found is None:
            break
        where = found.start()
        inside = code.end_around(where)
        if inside >= 0:
            at = inside
            continue
        piece = _markdown(text, found, stop)
        if piece is not None:
            begin, end, shown_start, shown_end = piece
            out.keep(kept, begin)
            out.keep(shown_start, shown_end)
            kept = at = end
            continue
        if text[where] != "<":
            at = found.end()
            continue
        out.keep(kept, where)
        end = _markup(text, where, stop, out, nested=nested)
        if end < 0:
            out.keep(where, where + 1)  # a "<" that opens nothing is shown
            end = where + 1
        kept = at = end
    out.keep(kept, stop)


def _markdown(text: str, found: re.Match[str], stop: int) -> tuple[int, int, int, int] | None:
    """The Markdown construct (or autolink) `found` starts: where it runs, and which part
    of it is shown (start, end, shown start, shown end); None if it makes none."""
    where = found.start()
    char = text[where]
    if char == "<":
        autolink = _AUTOLINK.match(text, where, stop)
        if autolink is None:
            return None
        return where, autolink.end(), where + 1, autolink.end() - 1  # the address shows
    if char == "~":
        match = _STRIKE.match(text, where, stop)
    elif char == "!":
        match = _IMAGE.match(text, where, stop)
    else:
        end = _definition_end(text, where, stop)
        if end >= 0:
            return where, end, where, where
        link = _LINK.match(text, found.end() - 1, stop)
        return None if link is None else (link.start(), link.end(), link.start(1), link.end(1))
    return None if match is None else (where, match.end(), where, where)


def _definition_end(text: str, at: int, stop: int) -> int:
    """Where a link reference definition starting at `at` ends, or -1 if none does."""
    if at and text[at - 1] != "\n":
        return -1
    found = _DEFINITION.match(text, at, stop)
    return -1 if found is None else found.end()


def _tag_end(text: str, at: int, stop: int) -> int:
    """The end of the tag opening at `at` (after its ">", quoted values skipped), or `stop`."""
    quote = ""
    for index in range(at, stop):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == ">":
            return index + 1
    return stop


def _markup(text: str, at: int, stop: int, out: _Out, *, nested: bool) -> int:
    """Handle the markup at `at` ("<" and a letter, "/", "!" or "?"); where shown text resumes.

    -1 when it is no markup (then the "<" is shown as typed).
    """
    if text[at + 1] in "!?":
        return _comment_end(text, at, stop)
    closing = text[at + 1] == "/"
    name_match = _NAME.match(text, at + 1 + closing, stop)
    if name_match is None:
        return -1
    name = name_match.group().lower()
    end = _tag_end(text, name_match.end(), stop)
    attributes = text[name_match.end() : end]
    if closing or name in _VOID or attributes.rstrip(">").rstrip().endswith("/"):
        _replace_tag(name, closing=closing, at=at, out=out)
        return end
    if end >= stop:
        return stop  # a tag left open at the end of the turn: browsers drop it
    if nested and (name == "details" or name in _CODE or name == "pre"):
        _replace_tag(name, closing=False, at=at, out=out)
        return end
    return _element(name, attributes, (at, end), stop, out)


def _comment_end(text: str, at: int, stop: int) -> int:
    """The end of a comment (`<!--`), or of a bogus one (`<!...>`, `<?...>`); unclosed: `stop`."""
    if text.startswith("<!--", at):
        if text.startswith(">", at + 4) or text.startswith("->", at + 4):
            return min(stop, at + 5 + (text[at + 4] == "-"))  # "<!-->", "<!--->": empty
        close = text.find("-->", at + 4, stop)
        return stop if close < 0 else close + 3
    close = text.find(">", at + 2, stop)
    return stop if close < 0 else close + 1


def _element(name: str, attributes: str, tag: tuple[int, int], stop: int, out: _Out) -> int:
    """An element opened by `tag`: hidden, collapsed, code, or shown with its tag dropped."""
    text = out.source
    if name in _NEVER_RENDERED or name in _STRUCK or _HIDING_ATTRIBUTE.search(attributes):
        return _closing_end(text, name, tag[1], stop)[1]
    if name == "details" and _OPEN_ATTRIBUTE.search(attributes) is None:
        return _collapsed(tag, stop, out)
    if name in _CODE or name == "pre":
        return _code_element(name, tag, stop, out)
    if name not in _HTML and out.last_closing(name) > tag[1]:
        out.insert("“", tag[0])  # its closing tag closes the quotation
        return tag[1]
    _replace_tag(name, closing=False, at=tag[0], out=out)
    return tag[1]


def _replace_tag(name: str, *, closing: bool, at: int, out: _Out) -> None:
    """What a plain tag leaves in the shown text: a line break, a quotation mark, nothing."""
    if name in _BLOCK:
        out.insert("\n", at)
    if name in _QUOTE:
        out.insert("”" if closing else "“", at)
    elif closing and name not in _HTML:
        out.insert("”", at)


def _closing_end(text: str, name: str, start: int, stop: int) -> tuple[int, int]:
    """Where the element `name` whose content starts at `start` closes: (content end, tag end).

    Nested elements of the same name are counted; unclosed, it runs to `stop`.
    """
    pattern = re.compile(rf"<(/?){re.escape(name)}(?![A-Za-z0-9:-])", re.IGNORECASE)
    depth = 1
    at = start
    while True:
        found = pattern.search(text, at, stop)
        if found is None:
            return stop, stop
        end = _tag_end(text, found.end(), stop)
        depth += -1 if found.group(1) else 1
        if depth == 0:
            return found.start(), end
        at = end


_SUMMARY: Final = re.compile(r"<summary(?![A-Za-z0-9:-])", re.IGNORECASE)


def _collapsed(tag: tuple[int, int], stop: int, out: _Out) -> int:
    """A collapsed `<details>`: only its summary shows, on a line of its own."""
    text, (at, content) = out.source, tag
    inner_end, end = _closing_end(text, "details", content, stop)
    out.insert("\n", at)
    summary = _SUMMARY.search(text, content, inner_end)
    if summary is not None:
        summary_content = _tag_end(text, summary.end(), inner_end)
        summary_end = _closing_end(text, "summary", summary_content, inner_end)[0]
        _scan(text, summary_content, summary_end, out, nested=True)
    out.insert("\n", min(stop, end))
    return end


def _code_element(name: str, tag: tuple[int, int], stop: int, out: _Out) -> int:
    """Code stays code: as a backtick span (`<code>`) or a fenced block (`<pre>`)."""
    text, (at, content) = out.source, tag
    inner_end, end = _closing_end(text, name, content, stop)
    inner = _Out(text, out)
    _scan(text, content, inner_end, inner, nested=True)
    shown = "".join(inner.parts)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    # Longer than any backtick run inside, so the content cannot close it early.
    fence = "\n" + "`" * max(3, longest + 1) + "\n" if name == "pre" else "`" * (longest + 1)
    out.insert(fence, at)
    out.parts.extend(inner.parts)
    out.origin.extend(inner.origin)
    out.insert(fence, inner_end)
    return end
