// StableHLO's own interpreter tests (openxla/stablehlo
// stablehlo/tests/interpret), from the folder $KILN_STABLEHLO_TESTS names:
// every test Kiln imports must compute the values its checks state. Only
// Debian's archive is reachable from the test machines, so the copy is the
// user's; without it this test is reported UNSUPPORTED.
// REQUIRES: stablehlo-tests
// RUN: %numpy_python %kiln_src_root/scripts/stablehlo_interpret.py kiln-run %stablehlo_tests
