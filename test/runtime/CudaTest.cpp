//===- CudaTest.cpp - the CUDA device, with and without a driver ----------===//
//
// Without a driver the CUDA device is reported absent with a clear message
// wherever it is asked for, and the CPU path still works; with one, tensors
// travel to the device and back unchanged.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestSupport.h"

using namespace kiln::test;

namespace {

kiln_tensor_t hostTensor() {
  float values[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  kiln_tensor_t tensor = nullptr;
  EXPECT_EQ(message(kiln_tensor_create(KILN_F32, 1, shape, values,
                                       sizeof(values), &tensor)),
            "ok");
  return tensor;
}

TEST(Cuda, MissingDriverIsReportedAndTheCpuStillWorks) {
  std::string why = message(kiln_device_check(KILN_DEVICE_CUDA));
  if (why == "ok")
    GTEST_SKIP() << "a CUDA driver is installed here";
  EXPECT_NE(why.find("the CUDA device is absent"), std::string::npos) << why;
  kiln_tensor_t tensor = hostTensor();
  kiln_tensor_t copy = nullptr;
  EXPECT_EQ(message(kiln_tensor_copy_to(tensor, KILN_DEVICE_CUDA, &copy)),
            why);
  EXPECT_EQ(copy, nullptr);
  EXPECT_EQ(message(kiln_device_check(KILN_DEVICE_CPU)), "ok");
  EXPECT_EQ(message(kiln_tensor_copy_to(tensor, KILN_DEVICE_CPU, &copy)),
            "ok");
  EXPECT_EQ(static_cast<float *>(kiln_tensor_data(copy))[3], 4.0f);
  kiln_tensor_free(copy);
  kiln_tensor_free(tensor);
}

TEST(Cuda, TensorsTravelToTheDeviceAndBack) {
  if (message(kiln_device_check(KILN_DEVICE_CUDA)) != "ok")
    GTEST_SKIP() << "no CUDA device here";
  kiln_tensor_t tensor = hostTensor();
  kiln_tensor_t device = nullptr, back = nullptr;
  ASSERT_EQ(message(kiln_tensor_copy_to(tensor, KILN_DEVICE_CUDA, &device)),
            "ok");
  EXPECT_EQ(kiln_tensor_device(device), KILN_DEVICE_CUDA);
  EXPECT_EQ(kiln_tensor_data(device), nullptr);
  EXPECT_NE(message(kiln_npy_write("/dev/null", device)), "ok");
  ASSERT_EQ(message(kiln_tensor_copy_to(device, KILN_DEVICE_CPU, &back)), "ok");
  EXPECT_EQ(static_cast<float *>(kiln_tensor_data(back))[2], 3.0f);
  kiln_tensor_free(back);
  kiln_tensor_free(device);
  kiln_tensor_free(tensor);
}

TEST(Cuda, DeviceNames) {
  EXPECT_STREQ(kiln_device_name(KILN_DEVICE_CPU), "cpu");
  EXPECT_STREQ(kiln_device_name(KILN_DEVICE_CUDA), "cuda");
  EXPECT_STREQ(kiln_device_name(static_cast<kiln_device_t>(7)), "invalid");
  EXPECT_NE(message(kiln_device_check(static_cast<kiln_device_t>(7))), "ok");
}

} // namespace
