"""MkDocs hook: no table of contents on a page that has at most one entry in it.

Material shows the table of contents in a sidebar that takes a sixth of a wide screen; with one
entry it only repeats the page's one heading and narrows the tables. (The one-link navigation
sidebar of a wide screen is hidden by prescient.css: there the tabs are the navigation.)
"""


def _entries(toc) -> int:
    items = list(toc)
    if len(items) == 1 and items[0].level == 1:  # Material lists the h1's children, not the h1
        items = list(items[0].children)
    return sum(1 + _entries(item.children) for item in items)


def on_page_context(context, page, config, nav):
    if _entries(page.toc) <= 1:
        hide = page.meta.get("hide") or []
        if "toc" not in hide:
            page.meta["hide"] = [*hide, "toc"]
    return context
