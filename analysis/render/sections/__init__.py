"""The report's own sections, one module each: every module writes its section into the page
(analysis/render/page.py) and names it with a Section (its heading's id and its link text).
Their order, and the sections written elsewhere, are listed in analysis/render/contents.py."""
