// A compute pass over a 1-D range dispatched as rows of work groups (gl::dispatchRows): a GPU may
// dispatch no more than 65535 groups in x (OpenGL's minimum; llvmpipe's), so a range of more
// groups takes several rows, each as long as the first.

// This work group's index in the range's order, row by row.
uint linearGroupId() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// This invocation's index in the range's order, in work groups of `groupSize` in x (the kernel's
// gl_WorkGroupSize.x, which only code after its layout line may name).
uint invocationInRows(uint groupSize) {
  return linearGroupId() * groupSize + gl_LocalInvocationID.x;
}
