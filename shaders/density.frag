// The surface density a body adds at this pixel: its mass times the 2-D cubic-spline kernel of
// radius h (Monaghan's M4 with compact support h, normalised over the plane: 40 / (7 pi h^2)),
// added up (blending ONE, ONE) in a float32 target.

flat in float vMassPerArea;  // m / h^2
layout(location = 0) out vec4 outDensity;

const float kNormalisation = 40.0 / (7.0 * 3.14159265358979);

float cubicSpline(float q) {
  return q < 0.5 ? 1.0 - 6.0 * q * q + 6.0 * q * q * q : 2.0 * (1.0 - q) * (1.0 - q) * (1.0 - q);
}

void main() {
  float q = length(2.0 * gl_PointCoord - 1.0);  // the distance from the centre over h
  if (q >= 1.0) discard;
  outDensity = vec4(kNormalisation * vMassPerArea * cubicSpline(q), 0.0, 0.0, 0.0);
}
