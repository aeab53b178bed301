// RUN: ltc-mlir-opt --convert-torch-to-linalg --split-input-file --verify-diagnostics %s

// Batch/group norm graphs the lowering cannot express are reported with the
// reason (the graph then runs through the TorchScript fallback, which raises
// eager's error where there is one).
func.func @run_time_training_flag(%x: !torch.vtensor<[4,2],f32>, %training: !torch.bool) -> !torch.vtensor<[4,2],f32> {
  %none = torch.constant.none
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  // expected-error @+1 {{unsupported op 'torch.aten.native_batch_norm': training must be a constant}}
  %0:3 = torch.aten.native_batch_norm %x, %none, %none, %none, %none, %training, %momentum, %eps : (!torch.vtensor<[4,2],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return %0#0 : !torch.vtensor<[4,2],f32>
}

// -----

func.func @weight_of_wrong_size(%x: !torch.vtensor<[4,2],f32>, %w: !torch.vtensor<[3],f32>) -> !torch.vtensor<[4,2],f32> {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  // expected-error @+1 {{unsupported op 'torch.aten.native_batch_norm': weight/bias must be float with C elements}}
  %0:3 = torch.aten.native_batch_norm %x, %w, %none, %none, %none, %true, %momentum, %eps : (!torch.vtensor<[4,2],f32>, !torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return %0#0 : !torch.vtensor<[4,2],f32>
}

// -----

func.func @train_backward_without_saved_stats(%dy: !torch.vtensor<[4,2],f32>, %x: !torch.vtensor<[4,2],f32>) -> !torch.vtensor<[4,2],f32> {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %eps = torch.constant.float 1.000000e-05
  %mask = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  // expected-error @+1 {{unsupported op 'torch.aten.native_batch_norm_backward': training needs save_mean/save_invstd (float, C elements)}}
  %0:3 = torch.aten.native_batch_norm_backward %dy, %x, %none, %none, %none, %none, %none, %true, %eps, %mask : (!torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.list<bool>) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return %0#0 : !torch.vtensor<[4,2],f32>
}

// -----

func.func @group_not_dividing_channels(%x: !torch.vtensor<[2,6,5],f32>) -> !torch.vtensor<[2,6,5],f32> {
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %int6 = torch.constant.int 6
  %int5 = torch.constant.int 5
  %int4 = torch.constant.int 4
  %eps = torch.constant.float 1.000000e-05
  // expected-error @+1 {{unsupported op 'torch.aten.native_group_norm': group must be a constant dividing C}}
  %0:3 = torch.aten.native_group_norm %x, %none, %none, %int2, %int6, %int5, %int4, %eps : (!torch.vtensor<[2,6,5],f32>, !torch.none, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int, !torch.float) -> (!torch.vtensor<[2,6,5],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>)
  return %0#0 : !torch.vtensor<[2,6,5],f32>
}

// -----

func.func @repeat_fewer_dims(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4],f32> {
  %int2 = torch.constant.int 2
  %reps = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{unsupported op 'torch.aten.repeat': repeats has fewer dims than self}}
  %0 = torch.aten.repeat %x, %reps : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
