"""A phone's browser without JavaScript, on Django's test client: it reads a page's forms and sends them
as such a browser does (the form's own fields, the pressed button's name and value, the CSRF token the
page holds, checked with the same rules as a real phone's), and follows the redirect to the next page."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from django.test import Client

from tests.conftest import shown

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parent: Element | None = None
    children: list = field(default_factory=list)  # elements and strings

    def walk(self):
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.walk()

    def text(self, hidden: bool = True) -> str:
        """The words inside, whitespace collapsed (`hidden`: with what aria-hidden keeps from screen readers)."""
        parts = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif hidden or child.attrs.get("aria-hidden") != "true":
                parts.append(child.text(hidden))
        return re.sub(r"[ \t\n\r\f]+", " ", shown("".join(parts))).strip(" ")  # (a no-break space stays)

    def name(self) -> str:
        """The accessible name of a button: its aria-label, else its words as a screen reader reads them."""
        return shown(self.attrs.get("aria-label", "")) or self.text(hidden=False)

    def ancestor(self, tag: str) -> Element | None:
        node = self.parent
        while node is not None and node.tag != tag:
            node = node.parent
        return node


class Tree(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.root = self.node = Element("#document", {})
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {key: value or "" for key, value in attrs}, self.node)
        self.node.children.append(element)
        if tag not in VOID:
            self.node = element

    def handle_endtag(self, tag):
        node = self.node
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.node = node.parent

    def handle_data(self, data):
        self.node.children.append(data)


class PlainPhone:
    """One phone (its own cookies) with JavaScript off. `language`: what its browser asks for."""

    def __init__(self, language: str | None = None):
        self.client = Client(enforce_csrf_checks=True, headers={"Accept-Language": language} if language else {})
        self.response = None
        self.redirects: list[str] = []

    def get(self, path: str) -> PlainPhone:
        return self.answered(self.client.get(path, follow=True))

    def answered(self, response) -> PlainPhone:
        self.response = response
        self.redirects = [url for url, _ in response.redirect_chain]
        self.tree = Tree(response.content.decode())
        return self

    @property
    def url(self) -> str:
        return self.response.request["PATH_INFO"]

    @property
    def html(self) -> str:
        return self.response.content.decode()

    def words(self) -> str:
        """Every word of the page, as read (tags and name isolation taken out, whitespace collapsed)."""
        return self.tree.root.text()

    def buttons(self, name: str) -> list[Element]:
        return [
            button
            for button in self.tree.root.walk()
            if button.tag == "button" and button.attrs.get("aria-hidden") != "true" and button.name() == name
        ]

    def links(self, name: str) -> list[Element]:
        return [a for a in self.tree.root.walk() if a.tag == "a" and "href" in a.attrs and a.name() == name]

    def follow(self, link: str) -> PlainPhone:
        """Tap the one link named `link`."""
        (found,) = self.links(link)
        return self.get(found.attrs["href"])

    def labelled(self, label: str) -> Element:
        """The one field labelled `label`."""
        (found,) = [e for e in self.tree.root.walk() if e.tag == "label" and e.text() == label]
        (field,) = [e for e in self.tree.root.walk() if e.attrs.get("id") == found.attrs["for"]]
        return field

    def inputs(self, name_starts: str = "") -> list[Element]:
        found = [e for e in self.tree.root.walk() if e.tag == "input"]
        return [e for e in found if e.attrs.get("name", "").startswith(name_starts)]

    def press(self, button: str, fill: dict[str, str] | None = None, check: dict[str, str] | None = None):
        """Press the one button named `button` (fields typed in with `fill`, radio buttons and boxes ticked
        with `check`: name -> value), as a tap does; the browser posts its form."""
        (found,) = self.buttons(button)
        assert "disabled" not in found.attrs, f"{button} is disabled"
        return self.send(found.ancestor("form"), found, fill or {}, check or {})

    def press_enter(self, field_name: str, fill: dict[str, str] | None = None):
        """Type in the field `field_name` and press Enter: the form's first submit button sends it."""
        (typed,) = [e for e in self.tree.root.walk() if e.attrs.get("name") == field_name and e.tag == "input"]
        form = typed.ancestor("form")
        first = next(b for b in form.walk() if b.tag == "button" and b.attrs.get("type", "submit") == "submit")
        return self.send(form, first, fill or {}, {})

    def send(self, form: Element, button: Element, fill: dict, check: dict):
        assert form is not None, "the button is in no form"
        data: dict[str, list[str]] = {}
        for element in form.walk():
            name = element.attrs.get("name")
            if not name or "disabled" in element.attrs:
                continue
            kind = element.attrs.get("type", "text")
            if element.tag == "input" and kind in ("radio", "checkbox"):
                if (name in check and check[name] == element.attrs.get("value", "on")) or (
                    name not in check and "checked" in element.attrs
                ):
                    data.setdefault(name, []).append(element.attrs.get("value", "on"))
            elif element.tag == "input" and kind not in ("submit", "button", "reset", "image"):
                data.setdefault(name, []).append(fill.get(name, element.attrs.get("value", "")))
            elif element.tag == "textarea":
                typed = "".join(child for child in element.children if isinstance(child, str))
                data.setdefault(name, []).append(fill.get(name, typed))
            elif element.tag == "select":
                options = [o for o in element.walk() if o.tag == "option"]
                chosen = next((o for o in options if "selected" in o.attrs), options[0] if options else None)
                if chosen is not None:
                    data.setdefault(name, []).append(fill.get(name, chosen.attrs.get("value", chosen.text())))
        if button.attrs.get("name"):
            data.setdefault(button.attrs["name"], []).append(button.attrs.get("value", ""))
        action = button.attrs.get("formaction") or form.attrs.get("action") or self.url
        if form.attrs.get("method", "get").lower() == "post":
            return self.answered(self.client.post(action, data, follow=True))
        return self.answered(self.client.get(action, data, follow=True))
