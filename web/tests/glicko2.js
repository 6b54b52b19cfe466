// Glicko-2 for one game between two new players (1500/350/0.06, τ = 0.5): the winner's and
// the loser's ratings, computed here as Glickman's paper gives the steps.
export function glicko2(score) {
  const q = 173.7178;
  const [mu, phi, sigma, tau] = [0, 350 / q, 0.06, 0.5];
  const g = 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));
  const E = 1 / (1 + Math.exp(-g * (mu - mu)));
  const v = 1 / (g * g * E * (1 - E));
  const delta = v * g * (score - E);
  const a = Math.log(sigma * sigma);
  const f = (x) => (Math.exp(x) * (delta * delta - phi * phi - v - Math.exp(x))) / (2 * (phi * phi + v + Math.exp(x)) ** 2) - (x - a) / (tau * tau);
  let A = a;
  let B;
  if (delta * delta > phi * phi + v) B = Math.log(delta * delta - phi * phi - v);
  else { let k = 1; while (f(a - k * tau) < 0) k++; B = a - k * tau; }
  let fA = f(A); let fB = f(B);
  while (Math.abs(B - A) > 1e-6) {
    const C = A + ((A - B) * fA) / (fB - fA); const fC = f(C);
    if (fC * fB <= 0) { A = B; fA = fB; } else fA /= 2;
    B = C; fB = fC;
  }
  const s2 = Math.exp(A / 2);
  const pre = Math.sqrt(phi * phi + s2 * s2);
  const phi2 = 1 / Math.sqrt(1 / (pre * pre) + 1 / v);
  return { rating: 1500 + q * (mu + phi2 * phi2 * g * (score - E)), deviation: q * phi2 };
}

