// python_frames: the Python stack as LTC's SourceLocations, so that nodes
// traced in debug mode (ltc_mlir.set_debug) record the user's source line.
// torch 1.13 installs its own getter only where its lazy Python bindings
// initialise, which `import torch` does not reach.
#include <Python.h>
#include <frameobject.h>

#include <torch/csrc/lazy/core/debug_util.h>

#include "python_frames.h"

namespace ltc_mlir {
namespace {

std::string Utf8(PyObject* s) {
  const char* text = s ? PyUnicode_AsUTF8(s) : nullptr;
  if (!text) PyErr_Clear();
  return text ? text : "";
}

std::vector<torch::lazy::SourceLocation> CurrentPythonFrames() {
  std::vector<torch::lazy::SourceLocation> frames;
  if (!Py_IsInitialized()) return frames;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {  // innermost first, as LTC's own getter
    PyCodeObject* code = PyFrame_GetCode(frame);
    torch::lazy::SourceLocation loc;
    loc.file = Utf8(code->co_filename);
    loc.function = Utf8(code->co_name);
    loc.line = PyFrame_GetLineNumber(frame);
    Py_DECREF(code);
    frames.push_back(std::move(loc));
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  PyGILState_Release(gil);
  return frames;
}

}  // namespace

void InstallPythonFrameGetter() {
  torch::lazy::GetPythonFramesFunction() = CurrentPythonFrames;
}

}  // namespace ltc_mlir
