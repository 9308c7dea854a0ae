// ONNX protobuf → Model (see reader.h for the contract and the list of refusals).
// Field numbers follow onnx/onnx.proto (IR version 8).
#include "onnx/reader.h"

#include <cmath>
#include <limits>
#include <set>

#include "onnx/protobuf_wire.h"

namespace attnlab::onnx {
namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}
float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

struct Ctx {
  const ReaderLimits& limits;
  std::string* error;
  int64_t total_elements = 0;
  bool fail(const std::string& msg) {
    if (error->empty()) *error = msg;
    return false;
  }
};

// Appends packed or unpacked varints of a repeated integer field.
bool read_varints(WireReader& r, WireType t, std::vector<int64_t>* out, size_t max_count) {
  uint64_t v;
  if (t == WireType::Varint) {
    if (!r.varint(&v) || out->size() >= max_count) return false;
    out->push_back(static_cast<int64_t>(v));
    return true;
  }
  if (t != WireType::Bytes) return false;
  ByteRange b;
  if (!r.bytes(&b)) return false;
  WireReader sub(b);
  while (!sub.done()) {
    if (!sub.varint(&v) || out->size() >= max_count) return false;
    out->push_back(static_cast<int64_t>(v));
  }
  return true;
}
bool read_floats(WireReader& r, WireType t, std::vector<float>* out, size_t max_count) {
  uint32_t bits;
  float f;
  if (t == WireType::Fixed32) {
    if (!r.fixed32(&bits) || out->size() >= max_count) return false;
    std::memcpy(&f, &bits, 4);
    out->push_back(f);
    return true;
  }
  if (t != WireType::Bytes) return false;
  ByteRange b;
  if (!r.bytes(&b) || b.size % 4 != 0 || out->size() + b.size / 4 > max_count) return false;
  const size_t n = b.size / 4, at = out->size();
  if (n == 0) return true;  // an empty packed field: nothing to copy (and data() may be null)
  out->resize(at + n);
  std::memcpy(out->data() + at, b.data, b.size);
  return true;
}

// Counts the values of a repeated numeric field occurrence without decoding (for the size check).
bool count_values(WireReader r, WireType t, size_t width, uint64_t* count) {  // width 0 = varint
  ByteRange b;
  if (t == WireType::Bytes) {
    if (!r.bytes(&b)) return false;
    if (width) {
      if (b.size % width) return false;
      *count += b.size / width;
    } else {
      for (size_t k = 0; k < b.size; ++k) *count += (b.data[k] & 0x80) ? 0 : 1;
    }
    return true;
  }
  *count += 1;
  return true;
}

bool dtype_supported(int dt) {
  switch (dt) {
    case kFloat: case kUInt8: case kInt8: case kUInt16: case kInt16: case kInt32: case kInt64: case kBool:
    case kFloat16: case kDouble: case kUInt32: case kUInt64: case kBFloat16: return true;
    default: return false;
  }
}
size_t raw_width(int dt) {
  switch (dt) {
    case kUInt8: case kInt8: case kBool: return 1;
    case kUInt16: case kInt16: case kFloat16: case kBFloat16: return 2;
    case kFloat: case kInt32: case kUInt32: return 4;
    default: return 8;  // INT64, UINT64, DOUBLE
  }
}

bool parse_tensor(ByteRange bytes, TensorData* t, Ctx& c, bool allow_empty) {
  WireReader r(bytes);
  struct Field { int field; WireType type; WireReader at; };
  std::vector<Field> data_fields;
  ByteRange raw{nullptr, 0};
  bool has_raw = false;
  int field;
  WireType type;
  while (!r.done()) {
    const WireReader here = r;  // at the key: data fields are re-read from here
    if (!r.key(&field, &type)) return c.fail("malformed tensor");
    uint64_t v;
    switch (field) {
      case 1:  // dims
        if (!read_varints(r, type, &t->dims, c.limits.max_rank)) return c.fail("tensor '" + t->name + "': bad dims or rank above " + std::to_string(c.limits.max_rank));
        break;
      case 2:
        if (type != WireType::Varint || !r.varint(&v)) return c.fail("tensor: bad data_type");
        t->dtype = static_cast<int>(v);
        break;
      case 8:
        if (type != WireType::Bytes || !r.string(&t->name, c.limits.max_name)) return c.fail("tensor: bad name");
        break;
      case 9:
        if (type != WireType::Bytes || !r.bytes(&raw)) return c.fail("tensor '" + t->name + "': bad raw_data");
        has_raw = true;
        break;
      case 3: return c.fail("tensor '" + t->name + "': segmented tensors are not supported");
      case 6: return c.fail("tensor '" + t->name + "': string tensors are not supported");
      case 13: return c.fail("tensor '" + t->name + "': external_data is refused (only self-contained models are read)");
      case 14:
        if (type != WireType::Varint || !r.varint(&v)) return c.fail("tensor: bad data_location");
        if (v != 0) return c.fail("tensor '" + t->name + "': data_location EXTERNAL is refused (only self-contained models are read)");
        break;
      case 4: case 5: case 7: case 10: case 11:
        data_fields.push_back({field, type, here});
        if (!r.skip(type)) return c.fail("tensor '" + t->name + "': malformed data field");
        break;
      default:
        if (!r.skip(type)) return c.fail("tensor '" + t->name + "': malformed field " + std::to_string(field));
    }
  }
  const std::string what = "tensor '" + t->name + "'";
  if (!dtype_supported(t->dtype))
    return c.fail(what + ": data type " + data_type_name(t->dtype) + " (" + std::to_string(t->dtype) + ") is not supported");
  int64_t n = 1;
  for (int64_t d : t->dims) {
    if (d < 0 || (d == 0 && !allow_empty)) return c.fail(what + ": dimension " + std::to_string(d) + " (dims must be > 0)");
    if (d != 0 && n > c.limits.max_tensor_elements / d)
      return c.fail(what + ": element count overflows the limit of " + std::to_string(c.limits.max_tensor_elements));
    n *= d;
  }
  if (n > c.limits.max_tensor_elements) return c.fail(what + ": " + std::to_string(n) + " elements exceed the limit");
  c.total_elements += n;
  if (c.total_elements > c.limits.max_total_elements)
    return c.fail(what + ": the model's tensors exceed " + std::to_string(c.limits.max_total_elements) + " elements in total");
  const int dt = t->dtype;
  const bool is_f = dt == kFloat || dt == kFloat16 || dt == kBFloat16, is_d = dt == kDouble;
  // Size check before allocating.
  if (has_raw) {
    if (!data_fields.empty()) return c.fail(what + ": both raw_data and typed data");
    if (raw.size != static_cast<uint64_t>(n) * raw_width(dt))
      return c.fail(what + ": raw_data has " + std::to_string(raw.size) + " bytes, dims and type need " +
                    std::to_string(static_cast<uint64_t>(n) * raw_width(dt)));
  } else {
    const int want = dt == kFloat ? 4 : dt == kInt64 ? 7 : is_d ? 10 : (dt == kUInt32 || dt == kUInt64) ? 11 : 5;
    uint64_t count = 0;
    for (const Field& f : data_fields) {
      if (f.field != want) return c.fail(what + ": data field " + std::to_string(f.field) + " does not match type " + data_type_name(dt));
      WireReader fr = f.at;
      int k;
      WireType ty;
      fr.key(&k, &ty);
      const size_t width = f.field == 4 ? 4 : f.field == 10 ? 8 : 0;
      if (width && ty != WireType::Bytes && ty != (width == 4 ? WireType::Fixed32 : WireType::Fixed64))
        return c.fail(what + ": malformed data");
      if (!count_values(fr, ty, width, &count)) return c.fail(what + ": malformed data");
    }
    if (count != static_cast<uint64_t>(n))
      return c.fail(what + ": holds " + std::to_string(count) + " values, dims need " + std::to_string(n));
  }
  // Decode. Raw data is converted in one pass into storage made for it (no zero-fill first: an int8 model's
  // weights become 8-byte integers, and writing them twice was most of the time a model took to read).
  const size_t un = static_cast<size_t>(n);
  if (has_raw) {
    const uint8_t* p = raw.data;
    auto fill = [&](auto& out, auto convert) {
      out.reserve(un);
      for (size_t k = 0; k < un; ++k) out.push_back(convert(k));
    };
    auto word = [p](size_t at, auto zero) {
      decltype(zero) v;
      std::memcpy(&v, p + at, sizeof v);
      return v;
    };
    switch (dt) {
      case kFloat: t->f.resize(un); if (un) std::memcpy(t->f.data(), p, 4 * un); break;
      case kFloat16: fill(t->f, [&](size_t k) { return half_to_float(word(2 * k, uint16_t())); }); break;
      case kBFloat16: fill(t->f, [&](size_t k) { return bf16_to_float(word(2 * k, uint16_t())); }); break;
      case kDouble: t->d.resize(un); if (un) std::memcpy(t->d.data(), p, 8 * un); break;
      case kUInt8: case kInt8: t->bytes.assign(p, p + un); break;  // kept as bytes (TensorData::int_at)
      case kBool: fill(t->i, [&](size_t k) { return int64_t(p[k] != 0); }); break;
      case kUInt16: fill(t->i, [&](size_t k) { return int64_t(word(2 * k, uint16_t())); }); break;
      case kInt16: fill(t->i, [&](size_t k) { return int64_t(word(2 * k, int16_t())); }); break;
      case kInt32: fill(t->i, [&](size_t k) { return int64_t(word(4 * k, int32_t())); }); break;
      case kUInt32: fill(t->i, [&](size_t k) { return int64_t(word(4 * k, uint32_t())); }); break;
      default: t->i.resize(un); if (un) std::memcpy(t->i.data(), p, 8 * un); break;  // INT64, UINT64
    }
    return true;
  }
  if (is_f) t->f.resize(un);
  else if (is_d) t->d.resize(un);
  else t->i.resize(un);
  size_t at = 0;
  for (const Field& f : data_fields) {
    WireReader fr = f.at;
    int k;
    WireType ty;
    fr.key(&k, &ty);
    if (f.field == 4) {
      std::vector<float> tmp;
      if (!read_floats(fr, ty, &tmp, un - at)) return c.fail(what + ": malformed float_data");
      std::copy(tmp.begin(), tmp.end(), t->f.begin() + at);
      at += tmp.size();
    } else if (f.field == 10) {
      auto take = [&](uint64_t bits) { double d; std::memcpy(&d, &bits, 8); t->d[at++] = d; };
      uint64_t bits;
      if (ty == WireType::Fixed64) {
        if (!fr.fixed64(&bits)) return c.fail(what + ": malformed double_data");
        take(bits);
      } else {
        ByteRange b;
        if (!fr.bytes(&b)) return c.fail(what + ": malformed double_data");
        for (size_t q = 0; q + 8 <= b.size; q += 8) { std::memcpy(&bits, b.data + q, 8); take(bits); }
      }
    } else {
      std::vector<int64_t> tmp;
      if (!read_varints(fr, ty, &tmp, un - at)) return c.fail(what + ": malformed integer data");
      for (int64_t v : tmp) {
        if (dt == kFloat16) t->f[at++] = half_to_float(static_cast<uint16_t>(v));
        else if (dt == kBFloat16) t->f[at++] = bf16_to_float(static_cast<uint16_t>(v));
        else if (dt == kInt32 || dt == kInt16 || dt == kInt8) t->i[at++] = static_cast<int32_t>(v);
        else if (dt == kBool) t->i[at++] = v != 0;
        else t->i[at++] = v;
      }
    }
  }
  return true;
}

bool parse_attribute(ByteRange bytes, Attribute* a, Ctx& c) {
  WireReader r(bytes);
  int field;
  WireType type;
  uint64_t v;
  uint32_t bits;
  ByteRange b;
  bool has_type = false;
  while (!r.done()) {
    if (!r.key(&field, &type)) return c.fail("malformed attribute");
    bool ok = true;
    switch (field) {
      case 1: ok = type == WireType::Bytes && r.string(&a->name, c.limits.max_name); break;
      case 20: ok = type == WireType::Varint && r.varint(&v); a->type = static_cast<int>(v); has_type = true; break;
      case 2: ok = type == WireType::Fixed32 && r.fixed32(&bits); std::memcpy(&a->f, &bits, 4); break;
      case 3: ok = type == WireType::Varint && r.varint(&v); a->i = static_cast<int64_t>(v); break;
      case 4: ok = type == WireType::Bytes && r.string(&a->s, c.limits.max_name); break;
      case 5: {
        ok = type == WireType::Bytes && r.bytes(&b);
        if (ok) {
          a->tensor.emplace_back();
          if (!parse_tensor(b, &a->tensor.back(), c, true)) return false;
        }
        break;
      }
      case 6: case 11: return c.fail("attribute '" + a->name + "': subgraphs are not supported");
      case 7: ok = read_floats(r, type, &a->floats, 1 << 20); break;
      case 8: ok = read_varints(r, type, &a->ints, 1 << 20); break;
      case 9: {
        std::string s;
        ok = type == WireType::Bytes && r.string(&s, c.limits.max_name) && a->strings.size() < 4096;
        a->strings.push_back(s);
        break;
      }
      default: ok = r.skip(type);
    }
    if (!ok) return c.fail("malformed attribute '" + a->name + "'");
  }
  if (!has_type) {  // IR < 3: infer from the payload
    a->type = !a->tensor.empty() ? Attribute::kTensor : !a->ints.empty() ? Attribute::kInts
            : !a->floats.empty() ? Attribute::kFloats : !a->s.empty() ? Attribute::kString : Attribute::kInt;
  }
  if (a->type == Attribute::kTensor && a->tensor.empty()) return c.fail("attribute '" + a->name + "': TENSOR without a tensor");
  return true;
}

bool parse_node(ByteRange bytes, Node* n, Ctx& c) {
  WireReader r(bytes);
  int field;
  WireType type;
  while (!r.done()) {
    if (!r.key(&field, &type)) return c.fail("malformed node");
    bool ok = true;
    std::string s;
    switch (field) {
      case 1: ok = type == WireType::Bytes && r.string(&s, c.limits.max_name); n->inputs.push_back(s); break;
      case 2: ok = type == WireType::Bytes && r.string(&s, c.limits.max_name); n->outputs.push_back(s); break;
      case 3: ok = type == WireType::Bytes && r.string(&n->name, c.limits.max_name); break;
      case 4: ok = type == WireType::Bytes && r.string(&n->op_type, c.limits.max_name); break;
      case 7: ok = type == WireType::Bytes && r.string(&n->domain, c.limits.max_name); break;
      case 5: {
        ByteRange b;
        ok = type == WireType::Bytes && r.bytes(&b);
        if (ok) {
          n->attributes.emplace_back();
          if (!parse_attribute(b, &n->attributes.back(), c)) return c.fail("node '" + n->name + "' (" + n->op_type + "): " + *c.error);
        }
        break;
      }
      default: ok = r.skip(type);
    }
    if (!ok) return c.fail("malformed node '" + n->name + "'");
  }
  if (n->domain == "ai.onnx") n->domain.clear();
  return true;
}

bool parse_value_info(ByteRange bytes, ValueInfo* vi, Ctx& c) {
  WireReader r(bytes);
  int field;
  WireType type;
  while (!r.done()) {
    if (!r.key(&field, &type)) return c.fail("malformed value_info");
    if (field == 1 && type == WireType::Bytes) {
      if (!r.string(&vi->name, c.limits.max_name)) return c.fail("malformed value_info name");
    } else if (field == 2 && type == WireType::Bytes) {  // TypeProto
      ByteRange tb;
      if (!r.bytes(&tb)) return c.fail("malformed type of '" + vi->name + "'");
      WireReader tr(tb);
      while (!tr.done()) {
        int f2;
        WireType t2;
        if (!tr.key(&f2, &t2)) return c.fail("malformed type of '" + vi->name + "'");
        if (f2 != 1 || t2 != WireType::Bytes) {
          if (!tr.skip(t2)) return c.fail("malformed type of '" + vi->name + "'");
          if (f2 == 4 || f2 == 5 || f2 == 8 || f2 == 9) vi->dtype = -1;  // sequence/map/sparse/optional
          continue;
        }
        ByteRange tt;
        tr.bytes(&tt);
        WireReader ttr(tt);
        while (!ttr.done()) {
          int f3;
          WireType t3;
          uint64_t v;
          if (!ttr.key(&f3, &t3)) return c.fail("malformed tensor type of '" + vi->name + "'");
          if (f3 == 1 && t3 == WireType::Varint) {
            if (!ttr.varint(&v)) return c.fail("malformed elem_type");
            vi->dtype = static_cast<int>(v);
          } else if (f3 == 2 && t3 == WireType::Bytes) {
            ByteRange sb;
            ttr.bytes(&sb);
            WireReader sr(sb);
            vi->has_shape = true;
            while (!sr.done()) {
              int f4;
              WireType t4;
              if (!sr.key(&f4, &t4)) return c.fail("malformed shape of '" + vi->name + "'");
              if (f4 != 1 || t4 != WireType::Bytes) { if (!sr.skip(t4)) return c.fail("malformed shape"); continue; }
              if (vi->dims.size() >= c.limits.max_rank) return c.fail("'" + vi->name + "': rank above " + std::to_string(c.limits.max_rank));
              ByteRange db;
              sr.bytes(&db);
              WireReader dr(db);
              int64_t dim = -1;
              std::string param;
              while (!dr.done()) {
                int f5;
                WireType t5;
                if (!dr.key(&f5, &t5)) return c.fail("malformed dimension of '" + vi->name + "'");
                if (f5 == 1 && t5 == WireType::Varint) { dr.varint(&v); dim = static_cast<int64_t>(v); }
                else if (f5 == 2 && t5 == WireType::Bytes) { if (!dr.string(&param, c.limits.max_name)) return c.fail("malformed dim_param"); }
                else if (!dr.skip(t5)) return c.fail("malformed dimension");
              }
              if (dim < 0 && param.empty() && dim != -1) dim = -1;
              vi->dims.push_back(dim > 0 ? dim : -1);
              vi->dim_names.push_back(param);
            }
          } else if (!ttr.skip(t3)) return c.fail("malformed tensor type");
        }
      }
    } else if (!r.skip(type)) {
      return c.fail("malformed value_info");
    }
  }
  return true;
}

bool parse_graph(ByteRange bytes, Model* m, Ctx& c) {
  WireReader r(bytes);
  int field;
  WireType type;
  std::vector<ValueInfo> inputs;
  while (!r.done()) {
    if (!r.key(&field, &type)) return c.fail("malformed graph");
    ByteRange b;
    if (field == 1 || field == 5 || field == 11 || field == 12 || field == 15) {
      if (type != WireType::Bytes || !r.bytes(&b)) return c.fail("malformed graph field " + std::to_string(field));
    }
    switch (field) {
      case 1:
        if (m->nodes.size() >= c.limits.max_nodes) return c.fail("more than " + std::to_string(c.limits.max_nodes) + " nodes");
        m->nodes.emplace_back();
        if (!parse_node(b, &m->nodes.back(), c)) return false;
        break;
      case 5:
        m->initializers.emplace_back();
        if (!parse_tensor(b, &m->initializers.back(), c, false)) return false;
        break;
      case 11: inputs.emplace_back(); if (!parse_value_info(b, &inputs.back(), c)) return false; break;
      case 12: m->outputs.emplace_back(); if (!parse_value_info(b, &m->outputs.back(), c)) return false; break;
      case 15: return c.fail("sparse initializers are not supported");
      case 2: if (type != WireType::Bytes || !r.string(&m->graph_name, c.limits.max_name)) return c.fail("malformed graph name"); break;
      default: if (!r.skip(type)) return c.fail("malformed graph field " + std::to_string(field));
    }
  }
  std::set<std::string> init_names;
  for (const auto& t : m->initializers) init_names.insert(t.name);
  for (auto& vi : inputs)
    if (!init_names.count(vi.name)) m->inputs.push_back(std::move(vi));
  return true;
}

}  // namespace

bool read_model(const uint8_t* bytes, size_t size, Model* out, std::string* error, const ReaderLimits& limits) {
  error->clear();
  *out = Model();
  Ctx c{limits, error};
  if (!bytes && size) return c.fail("no bytes");
  if (size > limits.max_bytes)
    return c.fail("the file has " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(limits.max_bytes));
  if (size == 0) return c.fail("empty file (not an ONNX model)");
  WireReader r(bytes, size);
  int field;
  WireType type;
  bool has_graph = false;
  while (!r.done()) {
    if (!r.key(&field, &type)) return c.fail("not an ONNX model (malformed protobuf at byte " + std::to_string(size - r.remaining()) + ")");
    uint64_t v;
    ByteRange b;
    switch (field) {
      case 1:
        if (type != WireType::Varint || !r.varint(&v)) return c.fail("not an ONNX model (bad ir_version)");
        out->ir_version = static_cast<int64_t>(v);
        break;
      case 2: if (type != WireType::Bytes || !r.string(&out->producer_name, limits.max_name)) return c.fail("not an ONNX model (bad producer_name)"); break;
      case 3: if (type != WireType::Bytes || !r.string(&out->producer_version, limits.max_name)) return c.fail("not an ONNX model (bad producer_version)"); break;
      case 7:
        if (type != WireType::Bytes || !r.bytes(&b)) return c.fail("not an ONNX model (bad graph field; truncated file?)");
        if (has_graph) return c.fail("two graphs in one model");
        has_graph = true;
        if (!parse_graph(b, out, c)) return false;
        break;
      case 8: {
        if (type != WireType::Bytes || !r.bytes(&b)) return c.fail("not an ONNX model (bad opset_import)");
        WireReader o(b);
        std::string domain;
        int64_t version = 0;
        while (!o.done()) {
          int f2;
          WireType t2;
          if (!o.key(&f2, &t2)) return c.fail("malformed opset_import");
          if (f2 == 1 && t2 == WireType::Bytes) { if (!o.string(&domain, limits.max_name)) return c.fail("malformed opset domain"); }
          else if (f2 == 2 && t2 == WireType::Varint) { o.varint(&v); version = static_cast<int64_t>(v); }
          else if (!o.skip(t2)) return c.fail("malformed opset_import");
        }
        if (domain == "ai.onnx") domain.clear();
        out->opsets[domain] = version;
        break;
      }
      default:
        if (!r.skip(type)) return c.fail("not an ONNX model (malformed protobuf at byte " + std::to_string(size - r.remaining()) + ")");
    }
  }
  if (!has_graph) return c.fail("not an ONNX model (no graph)");
  if (out->ir_version < 3 || out->ir_version > 10)
    return c.fail("IR version " + std::to_string(out->ir_version) + " is outside what is read (3 to 10)");
  if (out->opsets.empty()) out->opsets[""] = 1;
  for (Node& n : out->nodes) {
    auto it = out->opsets.find(n.domain);
    n.opset = it == out->opsets.end() ? 0 : static_cast<int>(it->second);
  }
  return true;
}

bool read_tensor(const uint8_t* bytes, size_t size, TensorData* out, std::string* error, const ReaderLimits& limits) {
  error->clear();
  *out = TensorData();
  Ctx c{limits, error};
  if (size > limits.max_bytes) return c.fail("tensor file larger than the limit");
  return parse_tensor(ByteRange{bytes, size}, out, c, true);
}

}  // namespace attnlab::onnx
