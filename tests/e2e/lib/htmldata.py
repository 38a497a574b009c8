# SPDX-License-Identifier: MIT
"""The data of a page `stallscope html` wrote, decoded: the JSON inside its
ss-data script element, with every gzip+base64 field (a run's frame gaps,
its stalls' stacks) replaced by what it decodes to, so that two pages that
say the same compare equal however their gzip streams were cut. And the
page less its data (the markup and the scripts around it)."""
import base64
import gzip
import json
import re

_DATA = re.compile(r'(<script type="application/json" id="ss-data">)(.*?)(</script>)', re.S)


def _decode(node):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k.endswith("_gz_b64") and isinstance(v, str):
                raw = gzip.decompress(base64.b64decode(v))
                out[k] = json.loads(raw) if k.startswith("json") else raw.hex()
            else:
                out[k] = _decode(v)
        return out
    if isinstance(node, list):
        return [_decode(x) for x in node]
    return node


def page_data(path):
    """The page's data, decoded (above)."""
    text = open(path, encoding="utf-8").read()
    m = _DATA.search(text)
    if not m:
        raise ValueError("%s: no ss-data script element" % path)
    return _decode(json.loads(m.group(2)))


def page_frame(path):
    """The page with its data left out."""
    text = open(path, encoding="utf-8").read()
    return _DATA.sub(r"\1\3", text, count=1)
