//! Binomial GLM with logit link (logistic regression): IRLS fit, Wald tests, BIC stepwise
//! selection over main effects and interactions, and the Hosmer–Lemeshow test.
//!
//! Conventions follow R's `glm(family = binomial)` and statsmodels' `GLM(..., Binomial())`:
//! treatment (dummy) coding with the first factor level as reference, column names in patsy's
//! style (`Dq`, `Ulevel[T.2]`, `Dq:Ulevel[T.2]`), log-likelihood with the binomial coefficient,
//! BIC = -2 logL + p ln(n) with n the number of rows.
//!
//! ```
//! use serpsim::stats::glm::{Column, Frame, logistic, design};
//! let x = vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
//! let frame = Frame::new(vec![("x".into(), Column::Numeric(x))]).unwrap();
//! let d = design(&frame, &[vec![0]]);
//! let fit = logistic(&d, &[0.0, 0.0, 1.0, 0.0, 1.0, 1.0], &[1.0; 6]).unwrap();
//! assert!(fit.converged && fit.coef[1] > 0.0);
//! ```

use crate::error::{Error, Result};
use statrs::distribution::{ChiSquared, ContinuousCDF};
use statrs::function::erf::erfc;
use statrs::function::gamma::ln_gamma;

/// A variable of a data frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// A continuous covariate.
    Numeric(Vec<f64>),
    /// A factor: `codes[i]` indexes `levels`; level 0 is the reference.
    Factor {
        /// Level names.
        levels: Vec<String>,
        /// Level of each row.
        codes: Vec<u32>,
    },
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Numeric(v) => v.len(),
            Column::Factor { codes, .. } => codes.len(),
        }
    }

    /// A factor from row labels, levels in order of first appearance unless `levels` is given.
    pub fn factor(labels: &[String], levels: Option<Vec<String>>) -> Result<Column> {
        let mut levels = levels.unwrap_or_default();
        let fixed = !levels.is_empty();
        let mut codes = Vec::with_capacity(labels.len());
        for l in labels {
            match levels.iter().position(|x| x == l) {
                Some(i) => codes.push(i as u32),
                None if !fixed => {
                    levels.push(l.clone());
                    codes.push(levels.len() as u32 - 1);
                }
                None => return Err(Error::Invalid(format!("factor value `{l}` is not a listed level"))),
            }
        }
        Ok(Column::Factor { levels, codes })
    }
}

/// Named columns of equal length.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Variable names.
    pub names: Vec<String>,
    /// Variables.
    pub columns: Vec<Column>,
}

impl Frame {
    /// A frame; columns must have equal lengths and finite values.
    pub fn new(cols: Vec<(String, Column)>) -> Result<Frame> {
        let n = cols.first().map_or(0, |c| c.1.len());
        for (name, c) in &cols {
            if c.len() != n {
                return Err(Error::Invalid(format!("GLM: column `{name}` has {} rows, expected {n}", c.len())));
            }
            if let Column::Numeric(v) = c {
                if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                    return Err(Error::Invalid(format!("GLM: column `{name}` row {} is not finite", i + 1)));
                }
            }
        }
        let (names, columns) = cols.into_iter().unzip();
        Ok(Frame { names, columns })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }

    /// Index of variable `name`.
    pub fn var(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// A model term: the product of the listed variables (frame indices, ascending). Main effects
/// have one variable; the intercept is implicit.
pub type Term = Vec<usize>;

/// Name of a term, variables joined by `:`.
pub fn term_name(frame: &Frame, t: &Term) -> String {
    t.iter().map(|&v| frame.names[v].as_str()).collect::<Vec<_>>().join(":")
}

/// A model matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    /// Row-major values, `rows x cols`.
    pub x: Vec<f64>,
    /// Rows.
    pub rows: usize,
    /// Columns (intercept first).
    pub cols: usize,
    /// Column names.
    pub names: Vec<String>,
    /// Term of each column (`None` for the intercept), as an index into the terms given.
    pub term_of: Vec<Option<usize>>,
}

/// The model matrix of an intercept plus `terms`, with treatment coding of factors.
pub fn design(frame: &Frame, terms: &[Term]) -> Design {
    let n = frame.rows();
    // Each column as (name, values).
    let mut cols: Vec<(String, Vec<f64>, Option<usize>)> = vec![("Intercept".into(), vec![1.0; n], None)];
    for (ti, t) in terms.iter().enumerate() {
        let mut parts: Vec<(String, Vec<f64>)> = vec![(String::new(), vec![1.0; n])];
        for &v in t {
            let name = &frame.names[v];
            let factors: Vec<(String, Vec<f64>)> = match &frame.columns[v] {
                Column::Numeric(x) => vec![(name.clone(), x.clone())],
                Column::Factor { levels, codes } => {
                    (1..levels.len()).map(|l| (format!("{name}[T.{}]", levels[l]), codes.iter().map(|&c| (c as usize == l) as u8 as f64).collect())).collect()
                }
            };
            let mut next = Vec::with_capacity(parts.len() * factors.len());
            for (pn, pv) in &parts {
                for (fname, fv) in &factors {
                    let nm = if pn.is_empty() { fname.clone() } else { format!("{pn}:{fname}") };
                    next.push((nm, pv.iter().zip(fv).map(|(a, b)| a * b).collect()));
                }
            }
            parts = next;
        }
        cols.extend(parts.into_iter().map(|(nm, v)| (nm, v, Some(ti))));
    }
    let p = cols.len();
    let mut x = vec![0.0; n * p];
    for (j, (_, v, _)) in cols.iter().enumerate() {
        for i in 0..n {
            x[i * p + j] = v[i];
        }
    }
    Design { x, rows: n, cols: p, names: cols.iter().map(|c| c.0.clone()).collect(), term_of: cols.iter().map(|c| c.2).collect() }
}

/// A fitted logistic regression.
#[derive(Debug, Clone, PartialEq)]
pub struct GlmFit {
    /// Column names.
    pub names: Vec<String>,
    /// Coefficients.
    pub coef: Vec<f64>,
    /// Standard errors (square roots of the diagonal of `cov`).
    pub se: Vec<f64>,
    /// Covariance of the coefficients, `(X' W X)^-1`, row-major.
    pub cov: Vec<f64>,
    /// Fitted probabilities per row.
    pub fitted: Vec<f64>,
    /// Residual deviance.
    pub deviance: f64,
    /// Deviance of the intercept-only model.
    pub null_deviance: f64,
    /// Log-likelihood (with the binomial coefficients).
    pub loglik: f64,
    /// AIC = -2 logL + 2 p.
    pub aic: f64,
    /// BIC = -2 logL + p ln(rows).
    pub bic: f64,
    /// Rows.
    pub rows: usize,
    /// IRLS iterations used.
    pub iterations: usize,
    /// Whether the deviance converged.
    pub converged: bool,
    /// Rows fitted with probability within [`SEPARATION_EPS`] of 0 or 1 while their response
    /// is all failures or all successes: (quasi-)complete separation. The maximum-likelihood
    /// estimate then does not exist; coefficients run off towards infinity and their standard
    /// errors are meaningless (about 1e7 where this was found). 0 for a regular fit.
    pub separated_rows: usize,
}

/// How close to 0 or 1 a fitted probability must be for [`GlmFit::separated_rows`] to count
/// its row (a regular fit needs |linear predictor| > 18.4 for that).
pub const SEPARATION_EPS: f64 = 1e-8;

/// A Wald test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wald {
    /// z (single coefficient) or chi-squared (joint) statistic.
    pub statistic: f64,
    /// Degrees of freedom (1 for a single coefficient).
    pub df: usize,
    /// p-value (two-sided for z).
    pub p: f64,
}

fn expit(eta: f64) -> f64 {
    1.0 / (1.0 + (-eta).exp())
}

fn xlogy(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * y.ln()
    }
}

fn deviance(y: &[f64], n: &[f64], mu: &[f64]) -> f64 {
    2.0 * y.iter().zip(n).zip(mu).map(|((&y, &n), &m)| xlogy(y, y / (n * m)) + xlogy(n - y, (n - y) / (n * (1.0 - m)))).sum::<f64>()
}

/// Cholesky factor (lower, row-major) of an SPD matrix; `None` if not positive definite.
fn cholesky(a: &[f64], p: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; p * p];
    for i in 0..p {
        for j in 0..=i {
            let mut s = a[i * p + j];
            for k in 0..j {
                s -= l[i * p + k] * l[j * p + k];
            }
            if i == j {
                if s <= 1e-13 * a[i * p + i].abs().max(1e-300) {
                    return None;
                }
                l[i * p + i] = s.sqrt();
            } else {
                l[i * p + j] = s / l[j * p + j];
            }
        }
    }
    Some(l)
}

fn chol_solve(l: &[f64], p: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..p {
        for k in 0..i {
            y[i] -= l[i * p + k] * y[k];
        }
        y[i] /= l[i * p + i];
    }
    for i in (0..p).rev() {
        for k in i + 1..p {
            y[i] -= l[k * p + i] * y[k];
        }
        y[i] /= l[i * p + i];
    }
    y
}

fn chol_inverse(l: &[f64], p: usize) -> Vec<f64> {
    let mut inv = vec![0.0; p * p];
    let mut e = vec![0.0; p];
    for j in 0..p {
        e.iter_mut().for_each(|x| *x = 0.0);
        e[j] = 1.0;
        let col = chol_solve(l, p, &e);
        for i in 0..p {
            inv[i * p + j] = col[i];
        }
    }
    inv
}

/// Fits `successes[i] ~ Binomial(trials[i], expit(x_i' b))` by iteratively reweighted least
/// squares, until the relative deviance change is below 1e-12 (at most 100 iterations).
pub fn logistic(d: &Design, successes: &[f64], trials: &[f64]) -> Result<GlmFit> {
    let (n, p) = (d.rows, d.cols);
    if successes.len() != n || trials.len() != n {
        return Err(Error::Invalid(format!("GLM: {n} rows but {} responses and {} trial counts", successes.len(), trials.len())));
    }
    if n < p {
        return Err(Error::Invalid(format!("GLM: {n} rows cannot fit {p} coefficients")));
    }
    for i in 0..n {
        let (y, m) = (successes[i], trials[i]);
        if !(m > 0.0 && m.is_finite() && y >= 0.0 && y <= m) {
            return Err(Error::Invalid(format!("GLM: row {} has {y} successes out of {m} trials", i + 1)));
        }
    }
    let mut mu: Vec<f64> = successes.iter().zip(trials).map(|(&y, &m)| (y + 0.5) / (m + 1.0)).collect();
    let mut eta: Vec<f64> = mu.iter().map(|&m| (m / (1.0 - m)).ln()).collect();
    let mut dev = deviance(successes, trials, &mu);
    let mut coef = vec![0.0; p];
    let mut converged = false;
    let mut iterations = 0;
    let mut l = Vec::new();
    for it in 1..=100 {
        iterations = it;
        let mut xtwx = vec![0.0; p * p];
        let mut xtwz = vec![0.0; p];
        for i in 0..n {
            let v = mu[i] * (1.0 - mu[i]);
            let w = trials[i] * v;
            let z = eta[i] + (successes[i] / trials[i] - mu[i]) / v;
            let row = &d.x[i * p..(i + 1) * p];
            for a in 0..p {
                let wa = w * row[a];
                xtwz[a] += wa * z;
                for b in 0..=a {
                    xtwx[a * p + b] += wa * row[b];
                }
            }
        }
        for a in 0..p {
            for b in a + 1..p {
                xtwx[a * p + b] = xtwx[b * p + a];
            }
        }
        l = cholesky(&xtwx, p).ok_or_else(|| Error::Invalid("GLM: the model matrix is rank deficient (collinear terms or an empty factor level)".into()))?;
        coef = chol_solve(&l, p, &xtwz);
        for i in 0..n {
            eta[i] = d.x[i * p..(i + 1) * p].iter().zip(&coef).map(|(a, b)| a * b).sum();
            mu[i] = expit(eta[i]).clamp(1e-300, 1.0 - 1e-16);
        }
        let new_dev = deviance(successes, trials, &mu);
        let change = (new_dev - dev).abs() / (new_dev.abs() + 0.1);
        dev = new_dev;
        if change < 1e-12 {
            converged = true;
            break;
        }
    }
    // Covariance at the final estimate.
    let mut xtwx = vec![0.0; p * p];
    for i in 0..n {
        let w = trials[i] * mu[i] * (1.0 - mu[i]);
        let row = &d.x[i * p..(i + 1) * p];
        for a in 0..p {
            for b in 0..p {
                xtwx[a * p + b] += w * row[a] * row[b];
            }
        }
    }
    if let Some(lf) = cholesky(&xtwx, p) {
        l = lf;
    }
    let cov = chol_inverse(&l, p);
    let se = (0..p).map(|j| cov[j * p + j].sqrt()).collect();
    let loglik: f64 = (0..n)
        .map(|i| {
            let (y, m) = (successes[i], trials[i]);
            ln_gamma(m + 1.0) - ln_gamma(y + 1.0) - ln_gamma(m - y + 1.0) + xlogy(y, mu[i]) + xlogy(m - y, 1.0 - mu[i])
        })
        .sum();
    let separated_rows =
        (0..n).filter(|&i| (mu[i] < SEPARATION_EPS && successes[i] == 0.0) || (mu[i] > 1.0 - SEPARATION_EPS && successes[i] == trials[i])).count();
    let pbar = successes.iter().sum::<f64>() / trials.iter().sum::<f64>();
    let null_deviance = deviance(successes, trials, &vec![pbar; n]);
    Ok(GlmFit {
        names: d.names.clone(),
        coef,
        se,
        cov,
        fitted: mu,
        deviance: dev,
        null_deviance,
        loglik,
        aic: -2.0 * loglik + 2.0 * p as f64,
        bic: -2.0 * loglik + p as f64 * (n as f64).ln(),
        rows: n,
        iterations,
        converged,
        separated_rows,
    })
}

impl GlmFit {
    /// Wald z test of coefficient `j`: z = b / se, two-sided normal p-value.
    pub fn wald(&self, j: usize) -> Wald {
        let z = self.coef[j] / self.se[j];
        Wald { statistic: z, df: 1, p: erfc(z.abs() / std::f64::consts::SQRT_2) }
    }

    /// Joint Wald chi-squared test that the coefficients `cols` are all zero.
    pub fn wald_joint(&self, cols: &[usize]) -> Wald {
        let p = self.coef.len();
        let k = cols.len();
        let sub: Vec<f64> = cols.iter().flat_map(|&a| cols.iter().map(move |&b| (a, b))).map(|(a, b)| self.cov[a * p + b]).collect();
        let b: Vec<f64> = cols.iter().map(|&j| self.coef[j]).collect();
        let stat = match cholesky(&sub, k) {
            Some(l) => b.iter().zip(chol_solve(&l, k, &b)).map(|(x, y)| x * y).sum(),
            None => f64::NAN,
        };
        let p = ChiSquared::new(k as f64).map(|c| c.sf(stat)).unwrap_or(f64::NAN);
        Wald { statistic: stat, df: k, p }
    }

    /// Coefficient table as CSV: `term,estimate,std_error,z,p`.
    pub fn table_csv(&self) -> String {
        let mut s = String::from("term,estimate,std_error,z,p\n");
        for j in 0..self.coef.len() {
            let w = self.wald(j);
            let f = crate::write::fmt_f64;
            s += &format!("{},{},{},{},{}\n", crate::write::csv_field(&self.names[j]), f(self.coef[j]), f(self.se[j]), f(w.statistic), f(w.p));
        }
        s
    }
}

/// Hosmer–Lemeshow goodness of fit with `g` groups, as R's `ResourceSelection::hoslem.test`:
/// rows are cut at the type-7 quantiles j/g of the fitted probabilities (intervals closed on
/// the right, the first also on the left; repeated break points merged), and
/// chi2 = sum over groups and both outcomes of (observed - expected)^2 / expected, on
/// (groups used - 2) degrees of freedom. Empty groups are skipped. Grouped rows count with
/// their trials.
pub fn hosmer_lemeshow(fitted: &[f64], successes: &[f64], trials: &[f64], g: usize) -> Wald {
    let mut sorted = fitted.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut breaks: Vec<f64> = (0..=g).map(|j| crate::stats::quantile_sorted(&sorted, j as f64 / g as f64)).collect();
    breaks.dedup();
    let groups = breaks.len().saturating_sub(1).max(1);
    let mut o1 = vec![0.0; groups];
    let mut o0 = vec![0.0; groups];
    let mut e1 = vec![0.0; groups];
    let mut e0 = vec![0.0; groups];
    let mut used = vec![false; groups];
    for i in 0..fitted.len() {
        let f = fitted[i];
        // Interval j covers (b_j, b_{j+1}]; the first also b_0.
        let j = breaks[1..].iter().position(|&b| f <= b).unwrap_or(groups - 1).min(groups - 1);
        used[j] = true;
        o1[j] += successes[i];
        o0[j] += trials[i] - successes[i];
        e1[j] += trials[i] * f;
        e0[j] += trials[i] * (1.0 - f);
    }
    let mut stat = 0.0;
    for j in 0..groups {
        if used[j] {
            stat += (o1[j] - e1[j]).powi(2) / e1[j] + (o0[j] - e0[j]).powi(2) / e0[j];
        }
    }
    let df = used.iter().filter(|&&u| u).count().saturating_sub(2);
    let p = if df == 0 { f64::NAN } else { ChiSquared::new(df as f64).map(|c| c.sf(stat)).unwrap_or(f64::NAN) };
    Wald { statistic: stat, df, p }
}

/// Every term of the full factorial of `vars` (main effects and all interactions), by order.
pub fn full_factorial(vars: &[usize]) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    for mask in 1u32..(1 << vars.len()) {
        let mut t: Term = (0..vars.len()).filter(|&i| mask >> i & 1 == 1).map(|i| vars[i]).collect();
        t.sort_unstable();
        terms.push(t);
    }
    terms.sort_by_key(|t| t.len());
    terms
}

/// Outcome of a stepwise search.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Selected terms, ordered by order then scope order.
    pub terms: Vec<Term>,
    /// Fit of the selected model.
    pub fit: GlmFit,
    /// Steps taken, e.g. `+ Dq`, `- Dq:Hq`, each with the BIC after the step.
    pub path: Vec<(String, f64)>,
}

fn is_sub(a: &Term, b: &Term) -> bool {
    a.iter().all(|v| b.contains(v))
}

fn canonical(terms: &mut [Term], scope: &[Term]) {
    terms.sort_by_key(|t| (t.len(), scope.iter().position(|s| s == t).unwrap_or(usize::MAX)));
}

/// Stepwise selection by BIC in both directions (as R's `step(k = log(n))`), starting from
/// `start`, within `scope`, respecting marginality: a term may enter only when all its
/// sub-terms of one order less are in, and may leave only when no term containing it is in.
/// Each step takes the move with the lowest BIC; the search stops when no move lowers it.
pub fn stepwise_bic(frame: &Frame, successes: &[f64], trials: &[f64], scope: &[Term], start: &[Term]) -> Result<Selection> {
    let mut current: Vec<Term> = start.to_vec();
    canonical(&mut current, scope);
    let mut fit = logistic(&design(frame, &current), successes, trials)?;
    let mut path = Vec::new();
    loop {
        let mut best: Option<(f64, Vec<Term>, GlmFit, String)> = None;
        let mut consider = |cand: Vec<Term>, label: String| -> Result<()> {
            let f = match logistic(&design(frame, &cand), successes, trials) {
                Ok(f) => f,
                Err(_) => return Ok(()), // rank-deficient candidates are not eligible
            };
            if best.as_ref().is_none_or(|b| f.bic < b.0) {
                best = Some((f.bic, cand, f, label));
            }
            Ok(())
        };
        for t in scope {
            if current.contains(t) {
                continue;
            }
            let parents_in = t.len() == 1
                || (0..t.len()).all(|i| {
                    let mut sub = t.clone();
                    sub.remove(i);
                    current.contains(&sub)
                });
            if parents_in {
                let mut cand = current.clone();
                cand.push(t.clone());
                canonical(&mut cand, scope);
                consider(cand, format!("+ {}", term_name(frame, t)))?;
            }
        }
        for t in &current {
            if current.iter().any(|u| u != t && is_sub(t, u)) {
                continue;
            }
            let cand: Vec<Term> = current.iter().filter(|u| *u != t).cloned().collect();
            consider(cand, format!("- {}", term_name(frame, t)))?;
        }
        match best {
            Some((bic, cand, f, label)) if bic < fit.bic - 1e-9 => {
                path.push((label, bic));
                current = cand;
                fit = f;
            }
            _ => break,
        }
    }
    Ok(Selection { terms: current, fit, path })
}

/// Forward (from the intercept) and backward (from the whole scope) stepwise BIC searches;
/// returns both, the first being the one with the lower BIC (forward on ties).
pub fn select_bic(frame: &Frame, successes: &[f64], trials: &[f64], scope: &[Term]) -> Result<(Selection, Selection)> {
    let fwd = stepwise_bic(frame, successes, trials, scope, &[])?;
    let bwd = stepwise_bic(frame, successes, trials, scope, scope);
    match bwd {
        Ok(b) if b.fit.bic < fwd.fit.bic - 1e-9 => Ok((b, fwd)),
        Ok(b) => Ok((fwd, b)),
        // The full model may be rank deficient; then only the forward search applies.
        Err(_) => Ok((fwd.clone(), fwd)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_form_two_group_model() {
        // One binary covariate: the MLE reproduces the group proportions exactly.
        // Group 0: 3 of 10; group 1: 7 of 10.
        let frame = Frame::new(vec![("g".into(), Column::Numeric(vec![0.0, 1.0]))]).unwrap();
        let d = design(&frame, &[vec![0]]);
        let f = logistic(&d, &[3.0, 7.0], &[10.0, 10.0]).unwrap();
        let logit = |p: f64| (p / (1.0 - p)).ln();
        assert!((f.coef[0] - logit(0.3)).abs() < 1e-10);
        assert!((f.coef[1] - (logit(0.7) - logit(0.3))).abs() < 1e-10);
        // se of a log odds = sqrt(1/a + 1/b); of the difference, the sum under the root.
        let v0: f64 = 1.0 / 3.0 + 1.0 / 7.0;
        assert!((f.se[0] - v0.sqrt()).abs() < 1e-9);
        assert!((f.se[1] - (2.0 * v0).sqrt()).abs() < 1e-9);
        assert!(f.deviance.abs() < 1e-9);
    }

    #[test]
    fn factor_coding_and_names() {
        let labels: Vec<String> = ["1", "2", "3", "1"].iter().map(|s| s.to_string()).collect();
        let frame = Frame::new(vec![("x".into(), Column::Numeric(vec![0.5, 1.0, 2.0, 3.0])), ("U".into(), Column::factor(&labels, None).unwrap())]).unwrap();
        let d = design(&frame, &[vec![0], vec![1], vec![0, 1]]);
        assert_eq!(d.names, vec!["Intercept", "x", "U[T.2]", "U[T.3]", "x:U[T.2]", "x:U[T.3]"]);
        assert_eq!(&d.x[6..12], &[1.0, 1.0, 1.0, 0.0, 1.0, 0.0]);
        assert_eq!(full_factorial(&[0, 1]), vec![vec![0], vec![1], vec![0, 1]]);
    }

    #[test]
    fn hosmer_lemeshow_hand_example() {
        // Four rows, two groups (g = 2): fitted .2 .4 | .6 .8; y = 0 1 | 1 1.
        let w = hosmer_lemeshow(&[0.2, 0.4, 0.6, 0.8], &[0.0, 1.0, 1.0, 1.0], &[1.0; 4], 2);
        // Group 1: O1 = 1, E1 = .6, O0 = 1, E0 = 1.4; group 2: O1 = 2, E1 = 1.4, O0 = 0, E0 = .6.
        let expect = 0.16 / 0.6 + 0.16 / 1.4 + 0.36 / 1.4 + 0.36 / 0.6;
        assert!((w.statistic - expect).abs() < 1e-12);
        assert_eq!(w.df, 0);
    }

    #[test]
    fn perfect_separation_is_flagged() {
        // x < 2 always fails, x >= 2 always succeeds: complete separation (hand-built), so the
        // MLE does not exist; every row is fitted at 0 or 1 and flagged. The two-group model
        // above (3 of 10, 7 of 10) is regular: nothing flagged.
        let frame = Frame::new(vec![("x".into(), Column::Numeric(vec![0.0, 1.0, 2.0, 3.0]))]).unwrap();
        let f = logistic(&design(&frame, &[vec![0]]), &[0.0, 0.0, 1.0, 1.0], &[1.0; 4]).unwrap();
        assert_eq!(f.separated_rows, 4);
        assert!(f.se[1] > 1e3, "{:?}", f.se);
        let frame = Frame::new(vec![("g".into(), Column::Numeric(vec![0.0, 1.0]))]).unwrap();
        let f = logistic(&design(&frame, &[vec![0]]), &[3.0, 7.0], &[10.0, 10.0]).unwrap();
        assert_eq!(f.separated_rows, 0);
    }

    #[test]
    fn rejects_bad_rows() {
        let frame = Frame::new(vec![("x".into(), Column::Numeric(vec![0.0, 1.0, 2.0]))]).unwrap();
        let d = design(&frame, &[vec![0]]);
        assert!(logistic(&d, &[2.0, 0.0, 1.0], &[1.0; 3]).is_err());
        assert!(Frame::new(vec![("x".into(), Column::Numeric(vec![f64::NAN]))]).is_err());
    }

    /// Agreement with statsmodels (analysis/sublists/glm_reference.py) to 1e-6.
    #[test]
    fn agrees_with_statsmodels_fixture() {
        let csv = include_str!("../../tests/fixtures/sublists/glm_data.csv");
        let reference: serde_json::Value = serde_json::from_str(include_str!("../../tests/fixtures/sublists/glm_reference.json")).unwrap();
        let load = |set: &str| {
            let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()).filter(|r| r[0] == set).collect();
            let num = |j: usize| rows.iter().map(|r| r[j].parse::<f64>().unwrap()).collect::<Vec<f64>>();
            let levels: Vec<String> = ["1", "2", "3", "4"].iter().map(|s| s.to_string()).collect();
            let u: Vec<String> = rows.iter().map(|r| r[6].to_string()).collect();
            let frame = Frame::new(vec![
                ("Dq".into(), Column::Numeric(num(3))),
                ("Rq".into(), Column::Numeric(num(4))),
                ("Hq".into(), Column::Numeric(num(5))),
                ("Ulevel".into(), Column::factor(&u, Some(levels)).unwrap()),
            ])
            .unwrap();
            (frame, num(1), num(2))
        };
        let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{what}: {a} vs {b}");
        let check = |key: &str, set: &str, terms: &[Term], wald_prefix: &str| {
            let (frame, y, n) = load(set);
            let fit = logistic(&design(&frame, terms), &y, &n).unwrap();
            let r = &reference[key];
            let names: Vec<String> = r["names"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
            assert_eq!(names.len(), fit.names.len());
            for (i, name) in names.iter().enumerate() {
                let j = fit.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("{key}: no column {name}"));
                close(fit.coef[j], r["coef"][i].as_f64().unwrap(), &format!("{key} coef {name}"));
                close(fit.se[j], r["se"][i].as_f64().unwrap(), &format!("{key} se {name}"));
                let w = fit.wald(j);
                close(w.statistic, r["z"][i].as_f64().unwrap(), &format!("{key} z {name}"));
                close(w.p, r["p"][i].as_f64().unwrap(), &format!("{key} p {name}"));
            }
            for (field, v) in [("loglik", fit.loglik), ("deviance", fit.deviance), ("null_deviance", fit.null_deviance), ("aic", fit.aic), ("bic", fit.bic)] {
                close(v, r[field].as_f64().unwrap(), &format!("{key} {field}"));
            }
            let hl = hosmer_lemeshow(&fit.fitted, &y, &n, 10);
            close(hl.statistic, r["hosmer_lemeshow"]["statistic"].as_f64().unwrap(), &format!("{key} HL"));
            assert_eq!(hl.df as u64, r["hosmer_lemeshow"]["df"].as_u64().unwrap());
            close(hl.p, r["hosmer_lemeshow"]["p"].as_f64().unwrap(), &format!("{key} HL p"));
            let cols: Vec<usize> = (0..fit.names.len()).filter(|&j| fit.names[j].starts_with(wald_prefix)).collect();
            let w = fit.wald_joint(&cols);
            close(w.statistic, r["wald_joint"]["statistic"].as_f64().unwrap(), &format!("{key} joint Wald"));
            close(w.p, r["wald_joint"]["p"].as_f64().unwrap(), &format!("{key} joint Wald p"));
        };
        check("bernoulli_main", "bernoulli", &[vec![0], vec![1], vec![2], vec![3]], "Ulevel");
        check("bernoulli_interactions", "bernoulli", &[vec![0], vec![1], vec![2], vec![3], vec![0, 1], vec![0, 3]], "Dq:Ulevel");
        check("grouped_main", "grouped", &[vec![0], vec![1], vec![3]], "Ulevel");
        // Stepwise selection over the full factorial, both directions.
        let (frame, y, n) = load("bernoulli");
        let scope = full_factorial(&[0, 1, 2, 3]);
        for (key, start) in [("stepwise_forward", vec![]), ("stepwise_backward", scope.clone())] {
            let sel = stepwise_bic(&frame, &y, &n, &scope, &start).unwrap();
            let names: Vec<String> = sel.terms.iter().map(|t| term_name(&frame, t)).collect();
            let expect: Vec<String> = reference[key]["terms"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
            assert_eq!(names, expect, "{key}");
            close(sel.fit.bic, reference[key]["bic"].as_f64().unwrap(), key);
            assert_eq!(sel.path.len(), reference[key]["path"].as_array().unwrap().len(), "{key} path");
        }
    }
}
