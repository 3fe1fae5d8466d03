/*===- npz_tool.c - read an .npz / .npy through the runtime and write it ===*
 *
 * npz_tool IN OUT [stored|deflate]: reads IN (.npz, or .npy when it ends so)
 * and writes its arrays to OUT (.npz); prints each array's name, dtype and
 * shape. Errors are printed and exit with status 1.
 *
 *===--------------------------------------------------------------------===*/
#include "kiln/runtime.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: npz_tool IN OUT stored|deflate\n");
    return 2;
  }
  size_t count = 0;
  char **names = NULL;
  kiln_tensor_t *tensors = NULL;
  kiln_tensor_t single = NULL;
  char singleName[] = "array";
  char *singleNames[] = {singleName};
  size_t length = strlen(argv[1]);
  kiln_status_t status;
  if (length > 4 && strcmp(argv[1] + length - 4, ".npy") == 0) {
    status = kiln_npy_read(argv[1], &single);
    count = status ? 0 : 1;
    names = singleNames;
    tensors = &single;
  } else {
    status = kiln_npz_read(argv[1], &count, &names, &tensors);
  }
  if (status) {
    printf("error: %s\n", kiln_status_message(status));
    kiln_status_free(status);
    return 1;
  }
  for (size_t i = 0; i < count; ++i) {
    printf("%s %s [", names[i], kiln_dtype_name(kiln_tensor_dtype(tensors[i])));
    for (int64_t d = 0; d < kiln_tensor_rank(tensors[i]); ++d)
      printf("%s%lld", d ? "," : "", (long long)kiln_tensor_shape(tensors[i])[d]);
    printf("]\n");
  }
  status = kiln_npz_write(argv[2], count, (const char *const *)names, tensors,
                          strcmp(argv[3], "deflate") == 0);
  if (single)
    kiln_tensor_free(single);
  else
    kiln_npz_free(count, names, tensors);
  if (status) {
    printf("error: %s\n", kiln_status_message(status));
    kiln_status_free(status);
    return 1;
  }
  return 0;
}
