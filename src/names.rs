//! Stable names for the enums whose values travel (the API, the database,
//! metrics): derived from the variants by strum, in `snake_case`, never
//! written out by hand. `named!(T)` gives `T` its list and both directions.

macro_rules! named {
    ($ty:ty) => {
        impl $ty {
            /// Every value, in the order they are declared.
            pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;

            /// The stable name.
            pub fn as_str(self) -> &'static str {
                self.into()
            }

            /// Every stable name, in the order they are declared.
            pub fn names() -> impl Iterator<Item = &'static str> {
                Self::ALL.iter().map(|value| value.as_str())
            }

            /// The value a stable name names.
            pub fn parse(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|value| value.as_str() == name)
            }
        }
    };
}
