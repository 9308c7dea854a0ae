// add_graph_outputs, expose_attention (graph_outputs.h).
#include "onnx/graph_outputs.h"

#include "onnx/attention_finder.h"
#include "onnx/protobuf_wire.h"
#include "onnx/reader.h"

namespace attnlab::onnx {
namespace {

void put_varint(std::vector<uint8_t>& o, uint64_t v) {
  while (v >= 0x80) {
    o.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  o.push_back(static_cast<uint8_t>(v));
}
// A length-delimited field: key, length, bytes.
void put_bytes(std::vector<uint8_t>& o, int field, const uint8_t* data, size_t n) {
  put_varint(o, (static_cast<uint64_t>(field) << 3) | 2);
  put_varint(o, n);
  o.insert(o.end(), data, data + n);
}
void put_message(std::vector<uint8_t>& o, int field, const std::vector<uint8_t>& m) {
  put_bytes(o, field, m.data(), m.size());
}

// ValueInfoProto {name (1), type (2): TypeProto {tensor_type (1): {elem_type (1): FLOAT}}}.
std::vector<uint8_t> float_value_info(const std::string& name) {
  std::vector<uint8_t> tensor, type, info;
  put_varint(tensor, (1u << 3) | 0);
  put_varint(tensor, 1);  // FLOAT
  put_message(type, 1, tensor);
  put_bytes(info, 1, reinterpret_cast<const uint8_t*>(name.data()), name.size());
  put_message(info, 2, type);
  return info;
}

// The names of a GraphProto's outputs (field 12, each a ValueInfoProto whose field 1 is the name).
bool output_names(ByteRange graph, std::vector<std::string>* names) {
  WireReader r(graph);
  while (!r.done()) {
    int field;
    WireType t;
    if (!r.key(&field, &t)) return false;
    if (field != 12 || t != WireType::Bytes) {
      if (!r.skip(t)) return false;
      continue;
    }
    ByteRange vi;
    if (!r.bytes(&vi)) return false;
    WireReader v(vi);
    while (!v.done()) {
      int f;
      WireType vt;
      if (!v.key(&f, &vt)) return false;
      if (f == 1 && vt == WireType::Bytes) {
        std::string s;
        if (!v.string(&s, 1 << 16)) return false;
        names->push_back(s);
      } else if (!v.skip(vt)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool add_graph_outputs(const uint8_t* bytes, size_t size, const std::vector<std::string>& names,
                       std::vector<uint8_t>* out, std::string* error) {
  out->clear();
  WireReader r(bytes, size);
  bool graph_seen = false;
  while (!r.done()) {
    const uint8_t* field_start = bytes + (size - r.remaining());
    int field;
    WireType t;
    if (!r.key(&field, &t)) {
      *error = "not an ONNX model (malformed protobuf)";
      return false;
    }
    if (field == 7 && t == WireType::Bytes) {  // ModelProto.graph
      if (graph_seen) {
        *error = "the model has two graph fields";
        return false;
      }
      ByteRange g;
      if (!r.bytes(&g)) {
        *error = "not an ONNX model (bad graph field; truncated file?)";
        return false;
      }
      std::vector<std::string> existing;
      if (!output_names(g, &existing)) {
        *error = "not an ONNX model (malformed graph)";
        return false;
      }
      std::vector<uint8_t> graph(g.data, g.data + g.size);
      for (const std::string& name : names) {
        for (const std::string& e : existing)
          if (e == name) {
            *error = "'" + name + "' is already a graph output";
            return false;
          }
        put_message(graph, 12, float_value_info(name));
      }
      put_message(*out, 7, graph);
      graph_seen = true;
      continue;
    }
    if (!r.skip(t)) {
      *error = "not an ONNX model (malformed protobuf)";
      return false;
    }
    const uint8_t* field_end = bytes + (size - r.remaining());
    out->insert(out->end(), field_start, field_end);
  }
  if (!graph_seen) {
    *error = "the model has no graph";
    return false;
  }
  return true;
}

bool expose_attention(const uint8_t* bytes, size_t size, std::vector<uint8_t>* out, std::vector<std::string>* names,
                      std::string* error) {
  names->clear();
  Model m;
  if (!read_model(bytes, size, &m, error)) return false;
  std::vector<std::string> added;
  for (const FoundAttention& a : find_attention(m)) {
    names->push_back(a.probabilities);
    bool declared = false;
    for (const ValueInfo& o : m.outputs) declared = declared || o.name == a.probabilities;
    if (!declared) added.push_back(a.probabilities);
  }
  if (added.empty()) {
    out->assign(bytes, bytes + size);
    return true;
  }
  return add_graph_outputs(bytes, size, added, out, error);
}

}  // namespace attnlab::onnx
