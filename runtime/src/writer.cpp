#include "binschema/writer.h"

namespace binschema {

uint64_t WriterBase::term(const LateTerm& t) const {
  switch (t.kind) {
    case LateTerm::None: return 0;
    case LateTerm::FileSize: return buf_.size();
    case LateTerm::Start:
    case LateTerm::End: {
      const auto& v = t.kind == LateTerm::Start ? starts_ : ends_;
      if (static_cast<size_t>(t.mark) >= v.size() || v[t.mark] == UINT64_MAX)
        throw EncodeError("internal: region " + std::to_string(t.mark) + " was never placed");
      return v[t.mark];
    }
  }
  return 0;
}

}  // namespace binschema
