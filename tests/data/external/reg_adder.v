// A registered adder written for accelgen's tests of third-party RTL (tests/fit/test_external.py):
// the sum of two WIDTH-bit inputs, registered, with a synchronous active-high reset.
// With `define WIDE_SUM the output keeps the carry (WIDTH + 1 bits); without it the sum wraps.
module reg_adder #(parameter WIDTH = 8) (
    input clk,
    input rst,
    input [WIDTH-1:0] a,
    input [WIDTH-1:0] b,
`ifdef WIDE_SUM
    output reg [WIDTH:0] sum
`else
    output reg [WIDTH-1:0] sum
`endif
);
    always @(posedge clk) begin
        if (rst)
            sum <= 0;
        else
            sum <= a + b;
    end
endmodule
