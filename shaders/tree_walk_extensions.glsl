// The extensions tree_walk.comp may use: first of its files, as #extension lines must come before
// any code. SUBGROUP_SCAN: its prefix sums through subgroup arithmetic (GL_KHR_shader_subgroup).
#if SUBGROUP_SCAN
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
