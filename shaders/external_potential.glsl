// Forces from outside the bodies (physics/external_potential.h): the acceleration of an ordered
// list of analytic components, summed in list order, which each force kernel adds once to a body's
// acceleration from the other bodies. The host computes each component's parameters in double and
// its centre at the stage's own time (GpuPotentialComponent). Written for float32: NFW's mu(u) by a
// series where ln(1 + u) - u / (1 + u) cancels, the bulge's incomplete gamma function by a fixed
// number of iterations, and no r^3 that underflows near a centre. docs/potentials.md has the
// accuracy measured against the CPU engine's double precision.
// Defines: POTENTIAL_COMPONENTS (how many components; 0: none, and nothing here is compiled).

#if POTENTIAL_COMPONENTS > 0

uniform int uPotentialKind[POTENTIAL_COMPONENTS];
uniform vec4 uPotentialParameters[POTENTIAL_COMPONENTS];
uniform vec3 uPotentialCentre[POTENTIAL_COMPONENTS];

const int kPointPotential = 0, kPlummerPotential = 1, kHernquistPotential = 2, kNfwPotential = 3,
          kMiyamotoNagaiPotential = 4, kLogarithmicPotential = 5, kPowerCutoffPotential = 6;

// d / |d|, zero at the centre.
vec3 directionOf(vec3 d, float r) { return r > 0.0 ? d / r : vec3(0.0); }

// Point mass and Plummer sphere: p = (G M, eps^2 or b^2).
vec3 plummerAcceleration(vec4 p, vec3 d) {
  float r2 = dot(d, d) + p.y;
  float inverseR = r2 > 0.0 ? inversesqrt(r2) : 0.0;
  return -p.x * (inverseR * inverseR * inverseR) * d;
}

// p = (G M, a): -G M d / (r (r + a)^2).
vec3 hernquistAcceleration(vec4 p, vec3 d) {
  float r = length(d);
  float ra = r + p.y;
  return -p.x / (ra * ra) * directionOf(d, r);
}

// mu(u) / u^2 with mu(u) = ln(1 + u) - u / (1 + u). Below u = 2, in s = u / (2 + u):
// mu = 2 sum_{n >= 2} c_n s^n, c_n = 1 for even n and -(n - 1) / n for odd n; 24 terms leave
// < 3e-7 at u = 2. Above it, the direct form, which no longer cancels.
float nfwMuOverU2(float u) {
  if (u >= 2.0) return (log(1.0 + u) - u / (1.0 + u)) / (u * u);
  float s = u / (2.0 + u);
  float sum = 0.0, power = 1.0;  // power = s^(n - 2)
  for (int n = 2; n < 26; ++n) {
    sum += ((n & 1) == 0 ? 1.0 : -float(n - 1) / float(n)) * power;
    power *= s;
  }
  float t = 1.0 / (2.0 + u);  // s / u
  return 2.0 * t * t * sum;
}

// p = (G M_s, a, 1 / a): -G M_s mu(r / a) d / r^3 = -G M_s (mu / u^2) / a^2 d / r.
vec3 nfwAcceleration(vec4 p, vec3 d) {
  float r = length(d);
  float u = r * p.z;
  return -p.x * nfwMuOverU2(u) * (p.z * p.z) * directionOf(d, r);
}

// p = (G M, a, b^2): zeta = sqrt(z^2 + b^2), D^2 = R^2 + (a + zeta)^2.
vec3 miyamotoNagaiAcceleration(vec4 p, vec3 d) {
  float zeta = sqrt(d.z * d.z + p.z);
  float az = p.y + zeta;
  float inverseD = inversesqrt(d.x * d.x + d.y * d.y + az * az);
  float scale = -p.x * inverseD * inverseD * inverseD;
  return scale * vec3(d.x, d.y, d.z * az / zeta);
}

// p = (v0^2, rc^2, 1 / p^2, 1 / q^2): -v0^2 (x, y / p^2, z / q^2) / (rc^2 + x^2 + y^2 / p^2 + ...).
vec3 logarithmicAcceleration(vec4 p, vec3 d) {
  vec3 scaled = d * vec3(1.0, p.z, p.w);
  float m2 = p.y + dot(d, scaled);
  return m2 > 0.0 ? -p.x / m2 * scaled : vec3(0.0);
}

// P(s, X) X^-1.5 for the bulge's enclosed mass M(r) = M P(s, r^2 / rc^2), with a fixed number of
// iterations either way (Numerical Recipes' gser and gcf): the series below X = s + 1, where
// X^(s - 1.5) keeps it finite at the centre, and Lentz's continued fraction for Q = 1 - P above.
// inverseGammaS = 1 / Gamma(s), from the host.
float enclosedFractionOverX15(float s, float x, float inverseGammaS) {
  if (x < s + 1.0) {
    float term = 1.0 / s, sum = term;
    for (int n = 1; n < 40; ++n) {
      term *= x / (s + float(n));
      sum += term;
    }
    return pow(x, s - 1.5) * exp(-x) * sum * inverseGammaS;
  }
  const float tiny = 1e-30;
  float b = x + 1.0 - s, c = 1.0 / tiny, dd = 1.0 / b, h = dd;
  for (int i = 1; i < 40; ++i) {
    float an = -float(i) * (float(i) - s);
    b += 2.0;
    dd = an * dd + b;
    dd = abs(dd) < tiny ? tiny : dd;
    c = b + an / c;
    c = abs(c) < tiny ? tiny : c;
    dd = 1.0 / dd;
    h *= dd * c;
  }
  float q = exp(s * log(x) - x) * h * inverseGammaS;
  return (1.0 - q) * inversesqrt(x) / x;
}

// p = (G M / rc^3, 1 / rc^2, s = 1.5 - alpha / 2, 1 / Gamma(s)):
// -G M P(s, X) d / r^3 = -(G M / rc^3) P X^-1.5 d, X = r^2 / rc^2.
vec3 powerCutoffAcceleration(vec4 p, vec3 d) {
  float x = dot(d, d) * p.y;
  return x > 0.0 ? -p.x * enclosedFractionOverX15(p.z, x, p.w) * d : vec3(0.0);
}

vec3 componentAcceleration(int kind, vec4 p, vec3 d) {
  if (kind == kPointPotential || kind == kPlummerPotential) return plummerAcceleration(p, d);
  if (kind == kHernquistPotential) return hernquistAcceleration(p, d);
  if (kind == kNfwPotential) return nfwAcceleration(p, d);
  if (kind == kMiyamotoNagaiPotential) return miyamotoNagaiAcceleration(p, d);
  if (kind == kLogarithmicPotential) return logarithmicAcceleration(p, d);
  return powerCutoffAcceleration(p, d);
}

// The potential's acceleration at `position` (G included).
vec3 externalAcceleration(vec3 position) {
  vec3 sum = vec3(0.0);
  for (int c = 0; c < POTENTIAL_COMPONENTS; ++c)
    sum += componentAcceleration(uPotentialKind[c], uPotentialParameters[c],
                                 position - uPotentialCentre[c]);
  return sum;
}
#endif
