"""The files of an export beside the module: the weights as a safetensors file
and as an MLIR `dialect_resources` block, and the names and types they share.

Both weight files hold the same bytes under the same keys (the globals'
symbols). A loader can map the safetensors file and hand MLIR pointers into
it (mlir_lowering/lib/Export/AotCompile.cpp): each tensor there is aligned
at least to its element size."""
import json
import re
import struct

import torch

ALIGNMENT = 64

# torch dtype -> (safetensors dtype, MLIR element type at the linalg level)
DTYPES = {
    torch.float32: ("F32", "f32"),
    torch.float64: ("F64", "f64"),
    torch.float16: ("F16", "f16"),
    torch.bfloat16: ("BF16", "bf16"),
    torch.int64: ("I64", "i64"),
    torch.int32: ("I32", "i32"),
    torch.int16: ("I16", "i16"),
    torch.int8: ("I8", "i8"),
    torch.uint8: ("U8", "i8"),
}
SAFETENSORS_TO_TORCH = {st: dt for dt, (st, _) in DTYPES.items()}


def c_identifier(name, taken):
    """`name` ("layers.0.weight") as a C identifier ("layers_0_weight") not in
    `taken`, which it is added to."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name) or "value"
    if ident[0].isdigit():
        ident = "v_" + ident
    candidate, n = ident, 1
    while candidate in taken:
        n += 1
        candidate = f"{ident}_{n}"
    taken.add(candidate)
    return candidate


def mlir_tensor_type(shape, dtype):
    element = DTYPES[dtype][1] if dtype in DTYPES else None
    if element is None:
        raise TypeError(f"dtype {dtype} cannot be exported")
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def parse_mlir_type(text):
    """'tensor<2x4xf32>' -> ([2, 4], 'f32'); 'i64' -> (None, 'i64')."""
    m = re.fullmatch(r"tensor<((?:\d+x)*)([a-z0-9]+)>", text)
    if not m:
        return None, text
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def constant_attribute(value):
    """A host tensor as MLIR attribute text: its raw little-endian bytes in
    the hex form of `dense`, which every element type accepts."""
    if value.dtype == torch.bool:
        shape = "".join(f"{d}x" for d in value.shape)
        return f"dense<{_nested(value.tolist())}> : tensor<{shape}i1>"
    data = tensor_bytes(value)
    return f'dense<"0x{data.hex().upper()}"> : {mlir_tensor_type(list(value.shape), value.dtype)}'


def _nested(v):
    if isinstance(v, list):
        return "[" + ", ".join(_nested(x) for x in v) + "]"
    return "true" if v else "false"


def tensor_bytes(tensor):
    t = tensor.detach().to("cpu").contiguous()
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def _padded(n):
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def storage_order(nbytes, itemsize):
    """Sort key of a tensor in a safetensors file (ours and <name>_save's):
    64-byte multiples first, then by decreasing element size."""
    return (nbytes % ALIGNMENT != 0, -itemsize)


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (key, host tensor). The format allows no gaps between
    tensors, only spaces after the header (padded to 64 bytes): tensors whose
    size is a multiple of 64 bytes come first and start 64-byte aligned, the
    others follow by decreasing element size, each aligned to its element."""
    order = sorted(tensors, key=lambda kt: storage_order(kt[1].numel() * kt[1].element_size(),
                                                         kt[1].element_size()))
    header, offset = {}, 0
    for key, t in order:
        nbytes = t.numel() * t.element_size()
        header[key] = {"dtype": DTYPES[t.dtype][0], "shape": list(t.shape),
                       "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (_padded(8 + len(text)) - 8 - len(text))
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, t in order:
            f.write(tensor_bytes(t))


def read_safetensors(path):
    """{key: CPU tensor} (copies; for tests and small files)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = SAFETENSORS_TO_TORCH[info["dtype"]]
        raw = bytearray(data[begin:end])
        if dtype in (torch.bfloat16, torch.float16):
            t = torch.frombuffer(raw, dtype=torch.int16).view(dtype) if raw else \
                torch.empty(0, dtype=dtype)
        else:
            t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[key] = t.reshape(info["shape"])
    return out


def write_weights_mlir(path, tensors, chunk=1 << 20):
    """The `{-# dialect_resources #-}` block for the module's dense_resource
    keys: `cat model.mlir model.weights.mlir` is a complete module for
    upstream tools. A blob's hex starts with its alignment (4 bytes, little
    endian)."""
    align = struct.pack("<I", ALIGNMENT).hex()
    with open(path, "w") as f:
        f.write("{-#\n  dialect_resources: {\n    builtin: {\n")
        for i, (key, t) in enumerate(tensors):
            f.write(f'      {key}: "0x{align}')
            data = memoryview(tensor_bytes(t))
            for start in range(0, len(data), chunk):
                f.write(data[start:start + chunk].hex().upper())
            f.write('"' + ("," if i + 1 < len(tensors) else "") + "\n")
        f.write("    }\n  }\n#-}\n")
