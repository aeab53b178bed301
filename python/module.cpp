// ltc_mlir._C: the Python binding. Thin: all logic lives in ltc_backend.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <c10/util/Exception.h>
#include <torch/csrc/Exceptions.h>

#include "ltc_backend/backend_impl.h"
#include "ltc_backend/batch_families.h"
#include "ltc_backend/config.h"
#include "ltc_backend/execution_errors.h"
#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/metrics.h"
#include "ltc_backend/pipelined_execution.h"
#include "ltc_backend/recompile_diagnostics.h"
#include "ltc_backend/shape_variants.h"
#include "python/export_bindings.h"
#include "python/replay_bindings.h"

namespace py = pybind11;
using namespace ltc_mlir::backend;

PYBIND11_MODULE(_C, m) {
  m.doc() = "ltc_mlir native extension";
  m.def("_init", &InitBackend, "Register the ltc_mlir LTC backend (idempotent).");
  m.def("_check_environment", [] {
    try {
      CheckEnvironment();
    } catch (const c10::ValueError& e) {
      throw py::value_error(e.what_without_backtrace());
    }
  });
  m.def("_openmp_runtime", [] { return GetOpenMPRuntimeName(); },
        "The OpenMP runtime running compiled loops (fixed by the first compile).");
  m.def("_metrics", [] {
    MetricsSnapshot s = Metrics::Get();
    py::dict d;
    d["compile_count"] = s.compile_count;
    d["cache_hits"] = s.cache_hits;
    d["execute_count"] = s.execute_count;
    d["native_execute_count"] = s.native_execute_count;
    d["compile_time_ms"] = s.compile_time_ms;
    d["execute_time_ms"] = s.execute_time_ms;
    d["fallback_graph_count"] = s.fallback_graph_count;
    d["fallback_execute_count"] = s.fallback_execute_count;
    d["fallback_ops"] = s.fallback_ops;
    d["native_ops"] = s.native_ops;
    d["disk_cache_hits"] = s.disk_cache_hits;
    d["disk_cache_misses"] = s.disk_cache_misses;
    d["code_reuse_hits"] = s.code_reuse_hits;
    d["batch_generic_compiles"] = s.batch_generic_compiles;
    d["batch_generic_hits"] = s.batch_generic_hits;
    d["batch_generic_refusals"] = s.batch_generic_refusals;
    d["batch_generic_refusal_reasons"] = s.batch_generic_refusal_reasons;
    d["meta_shape_probes"] = s.meta_shape_probes;
    d["meta_shape_cache_hits"] = s.meta_shape_cache_hits;
    d["deferred_graphs"] = s.deferred_graphs;
    d["deferred_execute_count"] = s.deferred_execute_count;
    d["compile_stage_ms"] = s.compile_stage_ms;
    d["fallback_reasons"] = s.fallback_reasons;
    d["compiled_graphs"] = s.compiled_graphs;
    d["kernel_fallback_calls"] = s.kernel_fallback_calls;
    d["compile_reasons"] = s.compile_reasons;
    d["compile_explanations"] = s.compile_explanations;
    d["collective_calls"] = s.collective_calls;
    d["collective_bytes"] = s.collective_bytes;
    d["collective_wait_ms"] = s.collective_wait_ms;
    d["replay_graphs"] = s.replay_graphs;
    d["replay_calls"] = s.replay_calls;
    d["replay_time_ms"] = s.replay_time_ms;
    d["replay_eager_graphs"] = s.replay_eager_graphs;
    d["replay_inputs_written_in_place"] = s.replay_inputs_written_in_place;
    d["replay_inputs_copied_back"] = s.replay_inputs_copied_back;
    return d;
  });
  m.def("_raise_pending_error", [] {
    // Same Python exception types as torch's own bindings, without the C++
    // backtrace.
    try {
      RaisePendingError();
    } catch (const c10::IndexError& e) {
      throw py::index_error(e.what_without_backtrace());
    } catch (const c10::ValueError& e) {
      throw py::value_error(e.what_without_backtrace());
    } catch (const c10::TypeError& e) {
      throw py::type_error(e.what_without_backtrace());
    } catch (const c10::Error& e) {
      throw std::runtime_error(e.what_without_backtrace());
    }
  });
  m.def("_set_pipelined", [](bool on) {
    py::gil_scoped_release no_gil;  // turning it off drains the pipeline
    SetPipelinedExecution(on);
  });
  m.def("_get_pipelined", &PipelinedExecution);
  m.def("_drain_pipeline", [] {
    py::gil_scoped_release no_gil;
    DrainPipeline();
  });
  m.def("_reset_metrics", &Metrics::Reset);
  m.def("_record_replay_eager_graph", &Metrics::RecordReplayEagerGraph);
  m.def("_record_compile_explanation", &Metrics::RecordCompileExplanation);
  m.def("_metrics_report", &Metrics::Report);
  m.def("_set_dump_dir", &SetDumpDir);
  m.def("_set_disabled_ops", &SetDisabledOps);
  m.def("_call_with_python_warnings", [](py::function fn) {
    // torch's _mark_step binding installs no warning handler: a TORCH_WARN
    // while it compiles (a fallback, a cache problem) would go to glog on
    // stderr instead of Python's warnings module.
    torch::PyWarningHandler handler;
    try {
      return fn();
    } catch (...) {
      handler.set_in_exception();
      throw;
    }
  });
  m.def("_set_debug", &SetDebug);
  m.def("_set_shape_variant_limit", &SetShapeVariantLimit);
  m.def("_get_shape_variant_limit", &GetShapeVariantLimit);
  m.def("_reset_shape_variants", &ResetShapeVariants);
  m.def("_set_batch_generic", &SetBatchGenericEnabled);
  m.def("_batch_generic_enabled", &BatchGenericEnabled);
  m.def("_reset_batch_families", &ResetBatchFamilies);
  m.def("_debug_enabled", &DebugEnabled);
  m.def("_set_cache_dir", &SetCacheDir);
  m.def("_get_cache_dir", &GetCacheDir);
  m.def("_set_cache_max_bytes", &SetCacheMaxBytes);
  m.def("_get_cache_max_bytes", &GetCacheMaxBytes);
  m.def("_get_disabled_ops", &GetDisabledOps);
  m.def("_get_dump_dir", &GetDumpDir);
  m.def("_set_reproducer_dir", &SetReproducerDir);
  m.def("_get_reproducer_dir", &GetReproducerDir);
  m.def("_register_aten_op_kernel", static_cast<void (*)(const std::string&, const std::string&)>(&RegisterAtenOpKernel),
        "Make a functional ATen op (e.g. 'erf', 'where.self') an AtenOpNode on the lazy device "
        "(result_like: the tensor argument whose shape the result has, for ops without a Meta "
        "kernel).",
        py::arg("name"), py::arg("result_like") = "");
  ltc_mlir::RegisterExportBindings(m);
  ltc_mlir::RegisterReplayBindings(m);
}
