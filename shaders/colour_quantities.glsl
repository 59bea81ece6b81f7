// The quantities that colour the bodies, defined once for both sides: shaders/point_sprite.vert
// reads this file as GLSL, and render/render_settings.h and .cpp include it as C++ (with GLM's
// vec3, length and dot), so the picture and the CPU's histogram and automatic range measure the
// same thing. Each entry is X(Name, number, measure):
//   Name     the value of the C++ enum ColorBy;
//   number   that value, which is point_sprite.vert's COLOR_BY;
//   measure  an expression, in the common ground of GLSL and C++ (floats written 0.5f), of
//              positionMass  vec4: the position and the mass,
//              velocity      vec3,
//              r, v          vec3: the position and the velocity about the centre of mass,
//              field         float: the body's value in a BodyField (render/body_field.h), the
//                            potential phi or the local density, for those that need one.
// Component colours each body by its component instead (its measure is not used). Its name,
// meaning and automatic range are its row in render_settings.cpp's table.
#define NBODY_COLOUR_QUANTITIES(X)                 \
  X(Speed, 0, length(velocity))                    \
  X(Mass, 1, positionMass.w)                       \
  X(Component, 2, 0.0f)                            \
  X(Radius, 3, length(r))                          \
  X(AngularMomentum, 4, r.x * v.y - r.y * v.x)     \
  X(Energy, 5, 0.5f * dot(v, v) + field)           \
  X(Density, 6, field)
