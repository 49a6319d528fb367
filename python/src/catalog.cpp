// What the library knows by name: the generators (`pipeplan list`), the GPUs (`pipeplan gpus`)
// and the version, as plain Python values.
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"
#include "estimate/gpu_catalog.hpp"
#include "io/version.hpp"
#include "schedules/generator.hpp"

namespace py = pybind11;

namespace pipeplan::python {

namespace {

py::dict link(const LinkSpec& l) {
  py::dict d;
  d["name"] = std::string(l.name);
  d["bandwidth_gb_per_s"] = l.bandwidth_gb_per_s;
  d["latency_ms"] = l.latency_ms;
  return d;
}

}  // namespace

void register_catalog(py::module_& m) {
  m.def("generators", [] {
    py::list out;
    for (const Generator& g : generators()) {
      py::dict d;
      d["name"] = std::string(g.name);
      d["description"] = std::string(g.description);
      d["constraints"] = std::string(g.constraints);
      d["min_chunks"] = g.min_chunks;
      d["max_chunks"] = g.max_chunks;
      d["default_chunks"] = g.default_chunks;
      d["uses_costs"] = g.uses_costs;
      d["memory_limit"] = std::string(memory_limit_use_name(g.memory_limit));
      d["takes_group"] = g.takes_group;
      out.append(d);
    }
    return out;
  });
  m.def("gpus", [] {
    py::list out;
    for (const GpuSpec& g : gpu_catalog()) {
      py::dict d;
      d["name"] = std::string(g.name);
      d["description"] = std::string(g.description);
      d["tflops_bf16"] = g.tflops_bf16;
      d["tflops_fp16"] = g.tflops_fp16;
      d["tflops_fp32"] = g.tflops_fp32;
      d["tflops_fp8"] = g.tflops_fp8;
      d["tflops_fp4"] = g.tflops_fp4;
      d["memory_bytes"] = g.memory_bytes;
      d["memory_gb_per_s"] = g.memory_gb_per_s;
      d["architecture"] = std::string(architecture_name(g.architecture));
      d["nvlink_domain"] = g.nvlink_domain;
      d["gpus_per_board"] = g.gpus_per_board > 0 ? g.gpus_per_board : g.nvlink_domain;
      d["intra_node"] = link(g.intra_node);
      d["inter_node"] = link(g.inter_node);
      d["host_link"] = link(g.host_link);
      d["sms"] = g.sms;
      out.append(d);
    }
    return out;
  });
  m.def("tool_version", [] { return tool_version(); });
}

}  // namespace pipeplan::python
