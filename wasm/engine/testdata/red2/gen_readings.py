# Writes readings.jsonl: later outputs that carry a withheld key, or a
# secret_reference object, in encodings real encoders write. Run with
# python3 (and node on PATH for the JavaScript encoders).
import base64, binascii, codecs, json, quopri, subprocess, urllib.parse

KEYS = {
    "openai": "sk-proj-4eC39HqLyjWDarjtT1zdp7dcXk9mP2vL",
    "password": "Xk9#mP2!vL8$qR4&wT6z-Qa7",
    "github": "ghp_4eC39HqLyjWDarjtT1zdp7dcXk9mP2vLqR4w",
    "nonascii": "Grüße-Kennwört-Ø7q9X2-wÿ4",
}
REF = '{"type":"secret_reference","id":"ref_9f2c41d7","label":"Stripe key","redeemUrl":"https://app.example/redeem/ref_9f2c41d7","ttl":300}'

def node(expr, s):
    return subprocess.run(["node", "-e", "process.stdout.write(String((" + expr + ")(process.argv[1])))", s],
                          capture_output=True, text=True, check=True).stdout

def encs(s):
    b = s.encode()
    u16le, u16be = s.encode("utf-16-le"), s.encode("utf-16-be")
    yield "base64", base64.b64encode(b).decode()
    yield "base64url-nopad", base64.urlsafe_b64encode(b).decode().rstrip("=")
    yield "base32", base64.b32encode(b).decode()
    yield "hex", b.hex()
    yield "HEX", b.hex().upper()
    yield "hex-colons", b.hex(":")
    yield "hex-dashes (BitConverter)", b.hex("-").upper()
    yield "hex-spaces", b.hex(" ")
    yield "percent-all", "".join("%%%02X" % c for c in b)
    yield "quote_plus", urllib.parse.quote_plus(s)
    yield "json-u-escapes", "".join("\\u%04x" % ord(c) for c in s)
    yield "html-dec", "".join("&#%d;" % ord(c) for c in s)
    yield "html-hex", "".join("&#x%x;" % ord(c) for c in s)
    yield "quoted-printable", quopri.encodestring(b, quotetabs=True).decode()
    yield "utf16le-as-latin1", u16le.decode("latin-1")
    yield "utf16be-as-latin1", u16be.decode("latin-1")
    yield "utf16le-as-utf16be", u16le.decode("utf-16-be", errors="replace")
    yield "utf16be-as-utf16le", u16be.decode("utf-16-le", errors="replace")
    yield "base64-utf16le", base64.b64encode(u16le).decode()
    yield "hex-utf16le", u16le.hex()
    yield "utf7", s.encode("utf-7").decode()
    yield "wbr", "<wbr>".join(s[i:i+4] for i in range(0, len(s), 4))
    yield "byte-list", str(list(b))
    yield "go-bytes", "[" + " ".join(str(c) for c in b) + "]"
    yield "node-buffer-inspect", node("s=>require('util').inspect(Buffer.from(s))", s)
    yield "node-escape", node("escape", s)
    yield "node-encodeURIComponent", node("encodeURIComponent", s)
    yield "node-JSON.stringify-utf16", node("s=>JSON.stringify(Buffer.from(s,'utf16le').toString('latin1'))", s)[1:-1]
    yield "base64-of-base64", base64.b64encode(base64.b64encode(b)).decode()
    yield "hex-of-base64", base64.b64encode(b).hex()
    yield "base64-latin1-mojibake", base64.b64encode(b.decode("latin-1").encode("utf-8")).decode()
    yield "utf8-as-cp1252", b.decode("cp1252", errors="replace")
    yield "utf8-as-cp1252-twice", b.decode("cp1252", errors="replace").encode("utf-8").decode("cp1252", errors="replace")
    yield "base64-latin1 (btoa)", base64.b64encode(s.encode("latin-1", errors="replace")).decode()
    yield "punycode-raw", s.encode("punycode").decode()
    yield "idna-label", "xn--" + s.lower().encode("punycode").decode() if not s.isascii() else s
    yield "mojibake-of-utf16be", u16be.decode("latin-1").encode("utf-8").decode("cp1252", errors="replace")

out = []
for kname, k in KEYS.items():
    for part, v in (("whole", k), ("slice", k[3:19])):
        for ename, e in encs(v):
            out.append({"name": "%s/%s/%s" % (kname, part, ename), "key": k, "later": "log: " + e + " - done"})
for ename, e in encs(REF):
    out.append({"name": "reference/" + ename, "later": "note - " + e + " - follow-up"})
for variant in ("SECRET_REFERENCE", "Secret-Reference", "secret reference", "secretReference"):
    r = REF.replace("secret_reference", variant)
    for ename, e in encs(r):
        if ename in ("base64", "hex", "base64-utf16le", "base64-of-base64", "base64-latin1-mojibake", "hex-utf16le"):
            out.append({"name": "reference-%s/%s" % (variant, ename), "later": "note - " + e + " - follow-up"})
# Each encoding again between random surroundings of hyphens, x, n, <,
# [ and digits, so that a text is or is not read again in other encodings
# (readings.go reads an ASCII text again only with a <, a [ or a "--").
import random
rng = random.Random(29)
bits = ["-", "x", "n", "xn-", "-xn", "--", "<", "[", "]", "115", ", ", " ", "follow-up", "sk-", "\u00e9", "\u2010"]
for kname in ("openai", "nonascii"):
    k = KEYS[kname]
    for ename, e in list(encs(k)) + list(encs(k[3:19])):
        for _ in range(6):
            pre = "".join(rng.choice(bits) for _ in range(rng.randint(0, 4)))
            post = "".join(rng.choice(bits) for _ in range(rng.randint(0, 4)))
            pre, post = json.loads('"' + pre + '"'), json.loads('"' + post + '"')
            out.append({"name": "ctx/%s/%s/%d" % (kname, ename, len(out)), "key": k, "later": pre + e + post})
with open("readings.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o) + "\n")
print(len(out))
