/* Step 2 of the export_c_api ctest: uses mlp.so through its generated header
 * in a process without Python or MLIR. Checks the error codes of bad calls,
 * then that 5 train steps leave eager's parameters and momentum buffers.
 *   c_api_test DIR   (DIR prepared by prepare.py) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"

static int failures;
#define EXPECT(cond, ...)                                   \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                         \
      fprintf(stderr, " (last error: %s)\n", mlp_last_error()); \
      ++failures;                                           \
    }                                                       \
  } while (0)

static void *read_file(const char *dir, const char *name, size_t size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  void *data = calloc(1, size ? size : 1);
  if (!f || fread(data, 1, size, f) != size) {
    fprintf(stderr, "cannot read %zu bytes of %s\n", size, path);
    exit(2);
  }
  fclose(f);
  return data;
}

static float max_difference(const float *a, const float *b, size_t n) {
  float worst = 0;
  for (size_t i = 0; i < n; ++i) {
    float d = fabsf(a[i] - b[i]);
    if (!(d <= worst)) worst = d; /* NaN counts as worst */
  }
  return worst;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const char *dir = argv[1];
  char path[4096];
  int64_t x_shape[] = {5, 6}, y_shape[] = {5, 3}, bad_shape[] = {5, 7}, loss_shape[1] = {0};
  float *x = read_file(dir, "input_0.bin", 5 * 6 * 4), *y = read_file(dir, "target_0.bin", 5 * 3 * 4);
  float loss = 0;
  ltc_tensor inputs[2] = {{x, LTC_F32, 2, x_shape}, {y, LTC_F32, 2, y_shape}};
  ltc_tensor outputs[1] = {{&loss, LTC_F32, 0, loss_shape}};

  /* Bad calls: error codes, never a crash. */
  EXPECT(mlp_train_step(inputs, 2, outputs, 1) == MLP_ERR_NOT_INITIALIZED, "call before init");
  EXPECT(mlp_init("/nonexistent/mlp.safetensors") == MLP_ERR_IO, "missing weights file");
  snprintf(path, sizeof path, "%s/wrong_dtype.safetensors", dir);
  EXPECT(mlp_init(path) == MLP_ERR_WEIGHTS, "weights of the wrong dtype");
  snprintf(path, sizeof path, "%s/mlp.safetensors", dir);
  EXPECT(mlp_init(path) == MLP_OK, "init");
  ltc_tensor wrong_shape[2] = {{x, LTC_F32, 2, bad_shape}, {y, LTC_F32, 2, y_shape}};
  EXPECT(mlp_train_step(wrong_shape, 2, outputs, 1) == MLP_ERR_ARGUMENT, "wrong input shape");
  EXPECT(strstr(mlp_last_error(), "input_0") != NULL, "the error names the input");
  ltc_tensor wrong_dtype[2] = {{x, LTC_F64, 2, x_shape}, {y, LTC_F32, 2, y_shape}};
  EXPECT(mlp_train_step(wrong_dtype, 2, outputs, 1) == MLP_ERR_ARGUMENT, "wrong input dtype");
  ltc_tensor wrong_rank[2] = {{x, LTC_F32, 1, x_shape}, {y, LTC_F32, 2, y_shape}};
  EXPECT(mlp_train_step(wrong_rank, 2, outputs, 1) == MLP_ERR_ARGUMENT, "wrong input rank");
  EXPECT(mlp_train_step(inputs, 1, outputs, 1) == MLP_ERR_ARGUMENT, "too few inputs");
  ltc_tensor null_data[2] = {{NULL, LTC_F32, 2, x_shape}, {y, LTC_F32, 2, y_shape}};
  EXPECT(mlp_train_step(null_data, 2, outputs, 1) == MLP_ERR_ARGUMENT, "NULL data");
  float small[4];
  EXPECT(mlp_read_global("no_such_global", small, sizeof small) == MLP_ERR_ARGUMENT,
         "unknown global");

  /* Five steps; the state read back matches eager's. */
  for (int step = 0; step < 5; ++step)
    EXPECT(mlp_train_step(inputs, 2, outputs, 1) == MLP_OK, "train step %d", step);
  float *expected_loss = read_file(dir, "expected/loss.bin", 4);
  EXPECT(fabsf(loss - *expected_loss) <= 2e-5f, "loss %g, eager %g", loss, *expected_loss);

  snprintf(path, sizeof path, "%s/globals.txt", dir);
  FILE *listing = fopen(path, "r");
  char name[256];
  size_t nbytes, checked = 0;
  while (listing && fscanf(listing, "%255s %zu", name, &nbytes) == 2) {
    float *got = malloc(nbytes);
    EXPECT(mlp_read_global(name, got, nbytes) == MLP_OK, "read %s", name);
    char file[300];
    snprintf(file, sizeof file, "expected/%s.bin", name);
    float *want = read_file(dir, file, nbytes);
    float d = max_difference(got, want, nbytes / 4);
    EXPECT(d <= 2e-5f, "%s differs from eager by %g", name, d);
    free(got);
    free(want);
    ++checked;
  }
  if (listing) fclose(listing);
  EXPECT(checked == 8, "checked %zu globals, expected 8", checked);
  snprintf(path, sizeof path, "%s/saved.safetensors", dir);
  EXPECT(mlp_save(path) == MLP_OK, "save");
  EXPECT(mlp_init(path) == MLP_OK, "init from the saved state");
  if (failures) fprintf(stderr, "%d failures\n", failures);
  else printf("c_api_test: all checks passed (%zu globals)\n", checked);
  return failures != 0;
}
