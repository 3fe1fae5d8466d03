/*===- embed.c - a C program that runs a Kiln artifact ------------------===*
 *
 * Uses only the runtime's C API (and only its core: no compiler is linked):
 * loads the artifact named by argv[1], checks the entry's signature, runs
 * `saxpy` on its own buffers, and checks every element against a loop.
 *
 *===--------------------------------------------------------------------===*/
#include "kiln/runtime.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int fail(kiln_status_t status) {
  fprintf(stderr, "embed: %s\n", kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: embed ARTIFACT\n");
    return 2;
  }
  kiln_module_t module;
  kiln_status_t status = kiln_module_load(argv[1], &module);
  if (status)
    return fail(status);
  printf("entry %s %s\n", kiln_module_entry_name(module, 0),
         kiln_module_entry_signature(module, "saxpy"));

  enum { N = 1000 };
  float a = 2.5f, x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.25f - 7.0f;
    y[i] = 3.0f - (float)i;
  }
  int64_t shape[] = {N};
  kiln_tensor_t args[3];
  kiln_status_t made[3] = {
      kiln_tensor_create(KILN_F32, 0, NULL, &a, sizeof(a), &args[0]),
      kiln_tensor_create(KILN_F32, 1, shape, x, sizeof(x), &args[1]),
      kiln_tensor_create(KILN_F32, 1, shape, y, sizeof(y), &args[2])};
  for (int i = 0; i < 3; ++i)
    if (made[i])
      return fail(made[i]);

  kiln_tensor_t result;
  status = kiln_module_call(module, "saxpy", 3, args, 1, &result);
  if (status)
    return fail(status);
  const float *out = (const float *)kiln_tensor_data(result);
  int wrong = 0;
  for (int i = 0; i < N; ++i)
    if (fabsf(out[i] - (a * x[i] + y[i])) > 1e-5f * fabsf(a * x[i] + y[i]))
      ++wrong;

  /* A caller's mistake is an error naming the argument, not a crash. */
  kiln_tensor_t results[1];
  status = kiln_module_call(module, "saxpy", 3, (kiln_tensor_t[]){args[1],
                            args[1], args[2]}, 1, results);
  printf("bad call: %s\n", kiln_status_message(status));
  kiln_status_free(status);

  kiln_tensor_free(result);
  for (int i = 0; i < 3; ++i)
    kiln_tensor_free(args[i]);
  kiln_module_free(module);
  printf("%d of %d elements wrong\n", wrong, N);
  return wrong != 0;
}
