# Writes detect_langs.jsonl's expected values: Python langdetect 1.0.9 run as the reference runs
# it (CPython 3.12, seed 0), with its languages loaded in name order as lang/ loads them.
#
#   apt-get install python3-langdetect          # Debian's package of langdetect 1.0.9
#   mkdir pyld && cp -r /usr/lib/python3/dist-packages/langdetect /usr/lib/python3/dist-packages/six.py pyld/
#   jq -c .text lang/testdata/detect_langs.jsonl | python3.12 lang/testdata/oracle.py pyld > new.jsonl
#
# Input: one JSON string per line. Output: {"text": ..., "want": [[lang, repr(prob)], ...]} per
# line, "want" null where langdetect raises (no features in the text).
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
from langdetect.detector_factory import DetectorFactory  # noqa: E402
from langdetect.lang_detect_exception import LangDetectException  # noqa: E402
from langdetect.utils.lang_profile import LangProfile  # noqa: E402

profiles = os.path.join(sys.argv[1], "langdetect", "profiles")
factory = DetectorFactory()
names = sorted(os.listdir(profiles))
for i, name in enumerate(names):
    with open(os.path.join(profiles, name), encoding="utf-8") as f:
        factory.add_profile(LangProfile(**json.load(f)), i, len(names))
DetectorFactory.seed = 0


def detect_langs(text):
    det = factory.create()
    det.append(text)
    try:
        return [[l.lang, repr(l.prob)] for l in det.get_probabilities()]
    except LangDetectException:
        return None


for line in sys.stdin:
    text = json.loads(line)
    print(json.dumps({"text": text, "want": detect_langs(text)}, ensure_ascii=False))
