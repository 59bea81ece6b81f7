#pragma once
// `nbody engines`: the engines, their options and the choices each offers.

namespace nbody {

int runEngines();

}  // namespace nbody
