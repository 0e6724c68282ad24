"""Check the built HTML site: local links, API pages, gallery figures.

Usage: ``python docs/check_links.py docs/_build/html``. For each ``href`` and
``src`` of every ``.html`` file: a relative URL must name an existing file, and a
``#fragment`` must be an ``id`` (or ``name``) in the target page. External URLs
(``http:``, ``https:``, ``mailto:``) are not fetched, and the files under
``_static/`` (theme templates, MathJax) are assets, not pages: the site must render offline,
and CI reaches only the package registries. Also checks that every name in the
``__all__`` of the public modules has its API page and that every gallery example
drew a non-empty figure. Exits 1 and lists what is wrong.
"""

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

SKIP_SCHEMES = ("http", "https", "mailto", "data", "javascript", "ftp")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if value and ((name == "href" and tag in ("a", "link", "area"))
                          or (name == "src" and tag in ("img", "script", "iframe"))):
                self.links.append(value)


def _parse(path, cache):
    if path not in cache:
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = page
    return cache[path]


def broken_links(root):
    """``(page, link, why)`` for every local link under ``root`` that does not resolve."""
    root = Path(root).resolve()
    cache, bad = {}, []
    for page_path in sorted(root.rglob("*.html")):
        if "_static" in page_path.relative_to(root).parts:
            continue  # theme templates and MathJax's own files, not pages of the site
        for link in _parse(page_path, cache).links:
            parts = urlsplit(link)
            if parts.scheme in SKIP_SCHEMES or link.startswith("//"):
                continue
            target = page_path if not parts.path else (page_path.parent / unquote(parts.path))
            target = target.resolve()
            if target.is_dir():
                target = target / "index.html"
            if root not in target.parents and target != root:
                bad.append((page_path, link, "outside the site"))
            elif not target.is_file():
                bad.append((page_path, link, "no such file"))
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in _parse(target, cache).ids:
                    bad.append((page_path, link, "no such anchor"))
    return bad, len(cache)


PUBLIC_MODULES = ("kgroups", "kgroups.graph", "kgroups.datasets", "kgroups.metrics",
                  "kgroups.exceptions")


def missing_pages(root):
    """Problems with the API pages and the gallery figures of the site under ``root``."""
    import importlib

    root, out = Path(root), []
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            # a name re-exported from another public module has its page there
            owner = getattr(getattr(module, name), "__module__", modname)
            pages = {f"{modname}.{name}.html"} | (
                {f"{owner}.{name}.html"} if owner in PUBLIC_MODULES else set())
            if not any((root / "api" / "generated" / p).is_file() for p in pages):
                out.append(f"no API page for {modname}.{name}")
    examples = sorted((root.parents[2] / "examples").glob("plot_*.py"))
    for example in examples:
        figures = list((root / "_images").glob(f"sphx_glr_{example.stem}_*.png"))
        figures = [f for f in figures if "thumb" not in f.name]
        if not figures or min(f.stat().st_size for f in figures) < 1000:
            out.append(f"no figure (or an empty one) from examples/{example.name}")
    if not examples:
        out.append("no examples found")
    return out


def main(argv):
    root = Path(argv[1] if len(argv) > 1 else "docs/_build/html")
    if not (root / "index.html").is_file():
        print(f"check_links: {root}/index.html does not exist; build the site first")
        return 1
    bad, n_pages = broken_links(root)
    for page, link, why in bad:
        print(f"{page.relative_to(root.resolve())}: {link} ({why})")
    problems = missing_pages(root)
    for problem in problems:
        print(problem)
    print(f"check_links: {n_pages} pages, {len(bad)} broken local links, "
          f"{len(problems)} missing API pages or figures")
    return 1 if bad or problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
