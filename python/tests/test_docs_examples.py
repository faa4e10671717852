"""The Python examples of docs/python.md run as written, in a folder that
holds what they name (photo.jpg, photos/, day1/, day2/): a change to the
package that breaks an example the docs show fails here."""
import os
import re
import shutil

import pytest

from conftest import PHOTOS, ROOT, builds_format

DOC = os.path.join(ROOT, "docs", "python.md")


def blocks():
    if not os.path.exists(DOC):
        return []
    with open(DOC) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_the_page_has_examples():
    if not os.path.exists(DOC):
        pytest.skip("no source tree here (docs/python.md)")
    assert len(blocks()) >= 1


@pytest.mark.parametrize("code", blocks(), ids=lambda c: c.strip().splitlines()[0][:40])
def test_example_runs(code, tmp_path, monkeypatch):
    for module in ("cupy", "torch"):
        if re.search(r"\bimport %s\b|\b%s\." % (module, module), code):
            pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    for ext in ("tif", "webp"):  # a build without libtiff or libwebp refuses them by name
        if re.search(r"\.%s\b" % ext, code) and not builds_format(ext):
            pytest.skip("this jetfilter was built without .%s" % ext)
    shutil.copy(os.path.join(PHOTOS, "retina.jpg"), "photo.jpg")
    for folder, names in (("photos", ("chelsea.png", "retina.jpg")), ("day1", ("chelsea.png",)),
                          ("day2", ("astronaut.png",))):
        os.mkdir(folder)
        for name in names:
            shutil.copy(os.path.join(PHOTOS, name), folder)
    exec(compile(code, DOC, "exec"), {"__name__": "__docs__"})
    if "clean.jpg" in code:
        assert os.path.exists("clean.jpg")
