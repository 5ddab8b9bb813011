// Fuzz target: the API model loader of tether check (--model FILE), on top of
// the built-in libtether model as the checker merges them. Any input must give
// a model or "source:line:col: problem"; an exception, a crash, UB or a hang is
// a defect.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tether/check/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tether::check::ApiModel kBuiltin = [] {
    tether::check::ApiModel m;
    std::string error;
    if (!tether::check::ParseModel(tether::check::kLibtetherModelJson, "builtin:libtether", &m, &error)) {
      std::abort();
    }
    return m;
  }();
  tether::check::ApiModel model = kBuiltin;
  std::string error;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!tether::check::ParseModel(text, "fuzz.json", &model, &error)) {
    if (error.rfind("fuzz.json:", 0) != 0) std::abort();  // the message names the source
    return 0;
  }
  for (const auto& g : model.task_groups) (void)model.FindGroup(g.type);
  return 0;
}
